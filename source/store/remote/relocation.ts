import { isAbsolute, relative, sep } from 'node:path';
import type { EngineEvent } from '../../engine/events.js';
import type { SessionRecord } from '../session-record.js';

/** One move of a session between folders (SessionRecord.relocations). */
export interface Relocation {
  from: string;
  to: string;
  through_event: number;
}

/** `path` under `from` (or `from` itself) as the same place under `to`; any other path as it is. */
export function rebase(path: string, from: string, to: string): string {
  if (from === to) return path;
  const rest = relative(from, path);
  if (rest === '') return to;
  if (rest.startsWith('..') || isAbsolute(rest)) return path;
  return `${to}${to.endsWith(sep) ? '' : sep}${rest}`;
}

/** The events that name files by path: files read, written or settled, artifacts. */
const pathTypes = new Set<EngineEvent['type']>(['file_read', 'file_write_intended', 'file_write_applied', 'file_write_recovered', 'artifact_written']);

/** The paths an event names: files it read, wrote or settled, and the files a person accepted. */
function withPaths(event: EngineEvent, map: (path: string) => string): EngineEvent {
  if (event.type === 'environment_accepted') return { ...event, files: event.files.map((file) => ({ ...file, path: map(file.path) })) };
  if (pathTypes.has(event.type)) return { ...event, path: map((event as EngineEvent & { path: string }).path) } as EngineEvent;
  return event;
}

/**
 * An event of the team store as it is found on this machine: each move of the session that came
 * after the event was written (its through_event at or past the event's id) applied in order. The
 * store keeps events as their machine wrote them; each machine's log holds them where they are there.
 */
export function relocateEvent(event: EngineEvent, moves: readonly Relocation[]): EngineEvent {
  const applying = moves.filter((move) => move.from !== move.to && event.event_id <= move.through_event);
  if (applying.length === 0) return event;
  return withPaths(event, (path) => applying.reduce((moved, move) => rebase(moved, move.from, move.to), path));
}

/** The record's own paths moved from `from` to `to`: where it runs, its spec, its artifacts. */
export function relocateRecord<T extends Pick<SessionRecord, 'cwd' | 'spec_path' | 'artifacts_dir' | 'artifacts_inherited'>>(record: T, from: string, to: string): T {
  if (from === to) return record;
  return {
    ...record,
    cwd: rebase(record.cwd, from, to),
    spec_path: rebase(record.spec_path, from, to),
    ...(record.artifacts_dir === undefined ? {} : { artifacts_dir: rebase(record.artifacts_dir, from, to) }),
    ...(record.artifacts_inherited === undefined ? {} : { artifacts_inherited: record.artifacts_inherited.map((path) => rebase(path, from, to)) }),
  };
}
