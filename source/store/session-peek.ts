import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { upgradeCheckpoint } from './checkpoint-upgrade.js';
import { rolledForward } from './log-tail.js';
import { join } from 'node:path';
import type { EngineEvent } from '../engine/events.js';
import type { Pattern } from '../engine/pattern.js';
import { hasPatternShape, patternFor } from '../engine/patterns/pattern-for.js';
import type { Checkpoint } from '../engine/session-progress.js';
import type { StepId } from '../engine/step-id.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { readEventLog } from './event-log.js';

/** What the details pane reads of a checkpoint: the steps under way and asked are listed by id. */
export type PeekedCheckpoint = Pick<Checkpoint, 'status' | 'steps_done' | 'steps_total' | 'stop_reason' | 'error' | 'last_response_preview' | 'last_event_id' | 'awaiting'> & { in_progress: StepId[] };

/** The part of a session the browser's details pane shows. */
export interface SessionPeek {
  checkpoint: PeekedCheckpoint;
  /** The session's pattern, built from its spec snapshot. */
  pattern: Pattern;
  /** The spec snapshot, checked only for what the pattern reads (its name, runtime and agents may be missing). */
  spec: WorkflowSpec;
  /** The event log as written (the checkpoint may trail it): read only when asked for. */
  events(): EngineEvent[];
  /** The id of the log's last whole event, read from its end; undefined for an empty log. */
  lastEventId(): number | undefined;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path} ${error instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read'}`, { cause: error });
  }
}

/** A JSON object (not null, not a scalar): the structural checks of files read without a schema. */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A running session's snapshot rolled forward over its log's tail: the snapshot is written lazily (store/log-tail.ts). */
function shownCheckpoint(dir: string, raw: Record<string, unknown>): Record<string, unknown> {
  if (raw.status !== 'running' || typeof raw.last_event_id !== 'number') return raw;
  try {
    return rolledForward(dir, upgradeCheckpoint(raw) as Checkpoint) as unknown as Record<string, unknown>;
  } catch {
    // A snapshot without the fields replay needs: shown as it is.
    return raw;
  }
}

/**
 * Reads one session for display only, with structural checks instead of the full schema: the
 * browser shows details on every selection change and must not load the validator to draw its
 * first frame. Resume still validates everything (`SessionStore.open`).
 */
export function peekSession(dir: string): SessionPeek {
  const record = readJson(join(dir, 'session.json'));
  const raw = isObject(record) ? record.checkpoint : undefined;
  const cp = isObject(raw) ? shownCheckpoint(dir, raw) : raw;
  if (!isObject(cp) || typeof cp.status !== 'string' || typeof (cp.steps_done ?? cp.next_step) !== 'number' || typeof cp.last_response_preview !== 'string') {
    throw new Error(`${join(dir, 'session.json')} does not match the session format`);
  }
  const spec = readJson(join(dir, 'spec.json'));
  if (!hasPatternShape(spec)) throw new Error(`${join(dir, 'spec.json')} is not a valid spec`);
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
  // Schema 1 kept one step under way as { step: <chain index> }; schema 2 keys them by step id.
  const running = isObject(cp.in_progress) ? (typeof cp.in_progress.step === 'number' ? [String(cp.in_progress.step)] : Object.keys(cp.in_progress)) : [];
  const log = join(dir, 'events.jsonl');
  return {
    checkpoint: {
      status: cp.status as Checkpoint['status'],
      // `next_step`: written before step ids (session schema 1), the completed chain steps.
      steps_done: (cp.steps_done ?? cp.next_step) as number,
      steps_total: typeof cp.steps_total === 'number' ? cp.steps_total : 0,
      stop_reason: typeof cp.stop_reason === 'string' ? (cp.stop_reason as Checkpoint['stop_reason']) : null,
      error: typeof cp.error === 'string' ? cp.error : null,
      last_response_preview: cp.last_response_preview,
      last_event_id: typeof cp.last_event_id === 'number' ? cp.last_event_id : 0,
      in_progress: running,
      awaiting: cp.awaiting === undefined && cp.status === 'awaiting_approval' ? running : strings(cp.awaiting),
    },
    pattern: patternFor(spec),
    spec,
    events: () => readEventLog(log),
    lastEventId: () => lastEventId(log),
  };
}

/**
 * The event id of the last whole line of a log, read from its end (a few KB, not the whole log):
 * whether a checkpoint is current costs the same for a session of ten steps or ten thousand.
 */
function lastEventId(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    for (let window = 16 * 1024; ; window *= 4) {
      const start = Math.max(0, size - window);
      const bytes = Buffer.alloc(size - start);
      readSync(fd, bytes, 0, bytes.length, start);
      // Whatever follows the last newline is a torn append, never durable.
      const end = bytes.lastIndexOf(10);
      const begin = end <= 0 ? -1 : bytes.lastIndexOf(10, end - 1);
      if (end > 0 && (begin >= 0 || start === 0)) {
        const line = bytes.subarray(begin + 1, end).toString('utf8');
        try {
          const event = JSON.parse(line) as { event_id?: unknown };
          return typeof event.event_id === 'number' ? event.event_id : undefined;
        } catch {
          return undefined;
        }
      }
      if (start === 0) return undefined;
    }
  } finally {
    closeSync(fd);
  }
}
