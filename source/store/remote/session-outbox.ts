import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fenceEvents, highestEpoch } from '../../engine/epoch-fence.js';
import type { EngineEvent } from '../../engine/events.js';
import { compareEvents } from '../../engine/session-progress.js';
import { readEventLogFrom } from '../event-log.js';
import { readCursor, type SyncCursor } from './sync-cursor.js';

/** What of one session's log is still to reach the store. */
export interface SessionOutbox {
  cursor: SyncCursor;
  /** Kept events past the cursor, in (ts, event_id) order; empty when nothing is pending or `waiting`. */
  pending: EngineEvent[];
  /** Kept events past the cursor, also those held back while `waiting`. */
  pendingCount: number;
  /** Where the whole lines read end (the cursor's log_bytes once they are all in the store). */
  logBytes: number;
  /** The highest epoch of the events before logBytes (the cursor's epoch with it). */
  epoch: number;
  /**
   * Why nothing can be pushed yet though events are pending: a new lock holder has taken the
   * session and not written yet, so it may still fence out the tail of what the log holds.
   */
  waiting?: string;
}

function logSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

function epochMark(dir: string): number {
  try {
    const value = Number(readFileSync(join(dir, 'epoch'), 'utf8'));
    return Number.isSafeInteger(value) && value > 0 ? value : 0;
  } catch {
    return 0;
  }
}

/**
 * The session's pending events as replay reads them — the fenced stream (engine/epoch-fence.ts) —
 * and only those no later lock holder can fence out any more. A holder fences out events appended
 * after it read the log, and it raises the session's epoch mark (`epoch`) before it reads. The log
 * is read as it stood at one stat, and the mark after: once the log's highest epoch has reached the
 * mark, every holder that could fence it has written there already (its fence is applied), and any
 * later one reads the log after it. Below the mark, a new holder has not written yet: the events
 * wait — unless no lock is left and the log did not grow meanwhile (no holder is left to write).
 * A log the cursor saw whole costs one stat; one that grew is read from where the cursor's lines
 * end, the fence going on from the epoch they had reached: what is before is in the store, and no
 * later holder can fence it (it was pushed only once settled), so a run's push reads what it
 * appended since, not its whole log.
 */
export function readOutbox(dir: string, remote: string): SessionOutbox {
  const path = join(dir, 'events.jsonl');
  const cursor = readCursor(dir, remote);
  const before = logSize(path);
  const known = cursor.epoch ?? 0;
  if (before === cursor.log_bytes) return { cursor, pending: [], pendingCount: 0, logBytes: before, epoch: known };
  const from = cursor.epoch !== undefined && cursor.log_bytes > 0 && cursor.log_bytes < before ? cursor.log_bytes : 0;
  const { events, end } = readEventLogFrom(path, from, before);
  const seen = Math.max(from > 0 ? known : 0, highestEpoch(events));
  const mark = epochMark(dir);
  const settled = seen >= mark || (!existsSync(join(dir, 'lock')) && logSize(path) === before);
  const kept = fenceEvents(events, from > 0 ? known : 0).filter((event) => event.event_id > cursor.event_id);
  if (!settled) return { cursor, pending: [], pendingCount: kept.length, logBytes: end, epoch: seen, waiting: 'a new lock holder took the session and has not written yet' };
  return { cursor, pending: kept.sort(compareEvents), pendingCount: kept.length, logBytes: end, epoch: seen };
}

/** The blobs an event names (file snapshots, whole tool answers, saved conversations): sha256 names. */
export function blobsOf(event: EngineEvent): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      // Most strings are not under a *blob key: the key is looked at first, the value's pattern only then.
      if (value.length === 64 && key.endsWith('blob') && /^[0-9a-f]{64}$/.test(value)) found.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key);
    } else if (typeof value === 'object' && value !== null) {
      for (const [name, item] of Object.entries(value)) visit(item, name);
    }
  };
  visit(event, '');
  return found;
}
