import { join } from 'node:path';
import { isAcodeError, type AcodeError } from '../../errors/acode-error.js';
import type { SessionSummary } from '../session-record.js';
import { connectRemote, failureReason } from './remote-client.js';
import type { RemoteTarget } from './remote-url.js';
import { pushSession, type SessionPush } from './replicator.js';
import { requireCurrentSchema } from './schema-migrate.js';
import { recordAttempt } from './sync-state.js';

/**
 * Pushes every session's pending events to the store now, oldest session first, each as
 * replicator.pushSession does; `onPush` hears of each. The attempt (its time, and why it failed) is
 * recorded for `acode status` whatever happens; a store that cannot be reached is an AcodeError
 * saying why, never with the password. A session whose log cannot be read here (damaged) is
 * passed over, told to `onUnreadable`, and the others still go.
 */
export async function syncAll(home: string, target: RemoteTarget, rows: readonly SessionSummary[], onPush: (push: SessionPush) => void, onUnreadable: (sessionId: string, error: AcodeError) => void): Promise<SessionPush[]> {
  const at = new Date().toISOString();
  try {
    const db = await connectRemote(target);
    try {
      await requireCurrentSchema(db, target.shown);
      const pushes: SessionPush[] = [];
      for (const row of [...rows].reverse()) {
        if (row.damaged) continue;
        let push: SessionPush;
        try {
          push = await pushSession(db, join(home, 'sessions', row.session_id), row, target.shown);
        } catch (error) {
          // Damage of this session's own files (ACODE-RESUME-005), not of the store or the connection.
          if (!isAcodeError(error) || error.code !== 'ACODE-RESUME-005') throw error;
          onUnreadable(row.session_id, error);
          continue;
        }
        pushes.push(push);
        onPush(push);
      }
      recordAttempt(home, { remote: target.shown, at, ok: true, reason: null });
      return pushes;
    } finally {
      await db.close();
    }
  } catch (error) {
    recordAttempt(home, { remote: target.shown, at, ok: false, reason: failureReason(target, error) });
    throw error;
  }
}
