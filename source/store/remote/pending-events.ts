import { join } from 'node:path';
import { isAcodeError } from '../../errors/acode-error.js';
import type { SessionSummary } from '../session-record.js';
import type { RemoteTarget } from './remote-url.js';
import { readOutbox } from './session-outbox.js';
import { readLastAttempt } from './sync-state.js';
import type { SyncView } from '../../state/sync-line.js';

/** One session's share of what is not yet in the store. */
export interface SessionPending {
  session_id: string;
  pending_events: number;
  waiting?: string;
  /** Why its log cannot be read here (damaged): nothing of it can be pushed until it is restored. */
  unreadable?: string;
}

/** What each session has pending for `target`, read from local files only (no connection). */
export function pendingBySession(home: string, target: RemoteTarget, rows: readonly SessionSummary[]): SessionPending[] {
  return rows
    .filter((row) => !row.damaged)
    .map((row): SessionPending => {
      try {
        const outbox = readOutbox(join(home, 'sessions', row.session_id), target.shown);
        return { session_id: row.session_id, pending_events: outbox.pendingCount, ...(outbox.waiting ? { waiting: outbox.waiting } : {}) };
      } catch (error) {
        if (!isAcodeError(error) || error.code !== 'ACODE-RESUME-005') throw error;
        return { session_id: row.session_id, pending_events: 0, unreadable: error.message };
      }
    });
}

/**
 * The home's sync state as the browser shows it: degraded while events are pending (with the last
 * attempt, its reason and the next retry a run's push set); undefined when all is in the store.
 * From local files alone, as `acode status`.
 */
export function homeSyncView(home: string, target: RemoteTarget, rows: readonly SessionSummary[]): SyncView | undefined {
  const pending = pendingBySession(home, target, rows).reduce((sum, session) => sum + session.pending_events, 0);
  if (pending === 0) return undefined;
  const last = readLastAttempt(home, target.shown);
  return {
    state: 'degraded',
    pending,
    ...(last ? { lastAttemptAt: Date.parse(last.at) } : {}),
    ...(last?.next_retry_at ? { nextRetryAt: Date.parse(last.next_retry_at) } : {}),
    ...(last && !last.ok && last.reason ? { reason: last.reason } : {}),
  };
}
