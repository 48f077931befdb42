import { join } from 'node:path';
import { isAcodeError } from '../../errors/acode-error.js';
import type { SessionSummary } from '../session-record.js';
import { connectRemote, unreachableReason } from './remote-client.js';
import type { RemoteTarget } from './remote-url.js';
import { pushSession, type SessionPush } from './replicator.js';
import { requireCurrentSchema } from './schema-migrate.js';
import { readOutbox } from './session-outbox.js';
import { recordAttempt } from './sync-state.js';

/** One session's share of what is not yet in the store. */
export interface SessionPending {
  session_id: string;
  pending_events: number;
  waiting?: string;
}

/** What each session has pending for `target`, read from local files only (no connection). */
export function pendingBySession(home: string, target: RemoteTarget, rows: readonly SessionSummary[]): SessionPending[] {
  return rows
    .filter((row) => !row.damaged)
    .map((row) => {
      const outbox = readOutbox(join(home, 'sessions', row.session_id), target.shown);
      return { session_id: row.session_id, pending_events: outbox.pendingCount, ...(outbox.waiting ? { waiting: outbox.waiting } : {}) };
    });
}

/**
 * Pushes every session's pending events to the store now, oldest session first, each as
 * replicator.pushSession does; `onPush` hears of each. The attempt (its time, and why it failed) is
 * recorded for `acode status` whatever happens; a store that cannot be reached is an AcodeError
 * saying why, never with the password.
 */
export async function syncAll(home: string, target: RemoteTarget, rows: readonly SessionSummary[], onPush: (push: SessionPush) => void): Promise<SessionPush[]> {
  const at = new Date().toISOString();
  try {
    const db = await connectRemote(target);
    try {
      await requireCurrentSchema(db, target.shown);
      const pushes: SessionPush[] = [];
      for (const row of [...rows].reverse()) {
        if (row.damaged) continue;
        const push = await pushSession(db, join(home, 'sessions', row.session_id), row, target.shown);
        pushes.push(push);
        onPush(push);
      }
      recordAttempt(home, { remote: target.shown, at, ok: true, reason: null });
      return pushes;
    } finally {
      await db.close();
    }
  } catch (error) {
    const reason = isAcodeError(error) ? error.message.replace(/^cannot reach the team store: /, '').replace(/; local sessions are unaffected.*$/, '') : unreachableReason(target, error);
    recordAttempt(home, { remote: target.shown, at, ok: false, reason: target.scrub(reason) });
    throw error;
  }
}
