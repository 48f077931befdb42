import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fenceEvents, highestEpoch } from '../../engine/epoch-fence.js';
import type { EngineEvent } from '../../engine/events.js';
import { compareEvents } from '../../engine/session-progress.js';
import { readEventLog } from '../event-log.js';
import { readCursor, type SyncCursor } from './sync-cursor.js';

/** What of one session's log is still to reach the store. */
export interface SessionOutbox {
  cursor: SyncCursor;
  /** Kept events past the cursor, in (ts, event_id) order; empty when nothing is pending or `waiting`. */
  pending: EngineEvent[];
  /** Kept events past the cursor, also those held back while `waiting`. */
  pendingCount: number;
  /** Size of the log read. */
  logBytes: number;
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
 * A log the cursor saw whole costs one stat.
 */
export function readOutbox(dir: string, remote: string): SessionOutbox {
  const path = join(dir, 'events.jsonl');
  const cursor = readCursor(dir, remote);
  const before = logSize(path);
  if (before === cursor.log_bytes) return { cursor, pending: [], pendingCount: 0, logBytes: before };
  const events = readEventLog(path, before);
  const mark = epochMark(dir);
  const settled = highestEpoch(events) >= mark || (!existsSync(join(dir, 'lock')) && logSize(path) === before);
  const kept = fenceEvents(events).filter((event) => event.event_id > cursor.event_id);
  if (!settled) return { cursor, pending: [], pendingCount: kept.length, logBytes: before, waiting: 'a new lock holder took the session and has not written yet' };
  return { cursor, pending: kept.sort(compareEvents), pendingCount: kept.length, logBytes: before };
}

/** The blobs an event names (file snapshots, whole tool answers, saved conversations): sha256 names. */
export function blobsOf(event: EngineEvent): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (/blob$/.test(key) && /^[0-9a-f]{64}$/.test(value)) found.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, key);
    } else if (typeof value === 'object' && value !== null) {
      for (const [name, item] of Object.entries(value)) visit(item, name);
    }
  };
  visit(event, '');
  return found;
}
