import { join } from 'node:path';
import { isAcodeError } from '../../errors/acode-error.js';
import type { SessionSummary } from '../session-record.js';
import { connectRemote, failureReason, type RemoteConnection } from './remote-client.js';
import type { RemoteTarget } from './remote-url.js';
import { pushSession } from './replicator.js';
import { requireCurrentSchema } from './schema-migrate.js';
import { readOutbox } from './session-outbox.js';
import { readLastAttempt, recordAttempt } from './sync-state.js';
import { flushBudgetMs } from './flush-budget.js';

export { flushBudgetMs };

/** What a flush before a remote operation did. */
export interface HomeFlush {
  /** Sessions that had events to send. */
  sessions: number;
  /** Events the store did not have before. */
  inserted: number;
  /** Events still pending once it stopped (held back, or the budget ran out). */
  left: number;
  /**
   * The budget ran out with a statement under way: the connection is still busy with it (a
   * statement queued behind it would wait as long), so the caller gives it up.
   */
  outOfTime: boolean;
}

/** The sessions of `rows` with events this home can send now, from local files alone (no connection); `first` ahead of the others. */
export function sessionsWithPending(home: string, target: RemoteTarget, rows: readonly SessionSummary[], first?: string): SessionSummary[] {
  const pending = rows.filter((row) => {
    if (row.damaged) return false;
    // The operation's own session goes whatever it holds: its row in the store is what its lease names.
    if (row.session_id === first) return true;
    try {
      return readOutbox(join(home, 'sessions', row.session_id), target.shown).pending.length > 0;
    } catch (error) {
      // A damaged log: 'acode sync' and 'acode status' name it; it holds no operation up.
      if (!isAcodeError(error) || error.code !== 'ACODE-RESUME-005') throw error;
      return false;
    }
  });
  // Oldest first, as `acode sync` goes; the session the operation is about before all.
  const ordered = [...pending].reverse();
  const at = ordered.findIndex((row) => row.session_id === first);
  if (at > 0) ordered.unshift(...ordered.splice(at, 1));
  return ordered;
}

const pendingNow = (home: string, target: RemoteTarget, row: SessionSummary): number => {
  try {
    return readOutbox(join(home, 'sessions', row.session_id), target.shown).pendingCount;
  } catch {
    return 0;
  }
};

/**
 * Pushes `sessions` (see sessionsWithPending) on `db`, one after another as replicator.pushSession
 * does, until they are all in the store or `deadline` (a Date.now() value) passes. Pending events
 * go to the store before any remote operation (FR-051…055) — but a slow store does not hold the
 * operation past the deadline: the flush stops there (what it pushed stays pushed, the rest stays
 * pending, each event once either way), and says so with `outOfTime`. A store that cannot be
 * reached throws, as pushSession does.
 */
export async function flushHome(db: RemoteConnection, home: string, target: RemoteTarget, sessions: readonly SessionSummary[], deadline: number): Promise<HomeFlush> {
  const flush: HomeFlush = { sessions: 0, inserted: 0, left: 0, outOfTime: false };
  if (sessions.length === 0) return flush;
  let stopped = false;
  const work = (async () => {
    for (const row of sessions) {
      if (stopped) return;
      try {
        const push = await pushSession(db, join(home, 'sessions', row.session_id), row, target.shown);
        flush.sessions++;
        flush.inserted += push.events_inserted;
      } catch (error) {
        if (!isAcodeError(error) || error.code !== 'ACODE-RESUME-005') throw error;
      }
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()))));
  try {
    const outcome = await Promise.race([work.then(() => 'done' as const), late]);
    if (outcome === 'late') {
      stopped = true;
      // The push under way ends on its own (its connection is given up): its failure is nobody's to hear.
      work.catch(() => {});
      flush.outOfTime = true;
    }
  } finally {
    clearTimeout(timer);
  }
  flush.left = sessions.reduce((sum, row) => sum + pendingNow(home, target, row), 0);
  return flush;
}

/**
 * For `acode status`: this home's pending events (of `rows`) pushed now, within flushBudgetMs in
 * all — connecting included — before the status is read from local files. Nothing pending: no
 * connection at all, and the status answers at once. The attempt is recorded as `acode sync`'s is
 * (a failed one keeps the next retry a run's background push announced); it never throws for
 * the store: the status says what is still pending, and why.
 */
export async function flushForStatus(home: string, target: RemoteTarget, rows: readonly SessionSummary[]): Promise<HomeFlush | undefined> {
  const sessions = sessionsWithPending(home, target, rows);
  if (sessions.length === 0) return undefined;
  const at = new Date().toISOString();
  const deadline = Date.now() + flushBudgetMs;
  const connecting = connectRemote(target);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), flushBudgetMs)));
  try {
    const db = await Promise.race([connecting, late]);
    if (!db) {
      // Connected too late: closed whenever it answers.
      void connecting.then((later) => later.close(), () => {});
      return { sessions: 0, inserted: 0, left: sessions.reduce((sum, row) => sum + pendingNow(home, target, row), 0), outOfTime: true };
    }
    try {
      await requireCurrentSchema(db, target.shown);
      const flushed = await flushHome(db, home, target, sessions, deadline);
      recordAttempt(home, { remote: target.shown, at, ok: true, reason: null });
      return flushed;
    } finally {
      // A connection still busy with a push that ran out of time is given up, not waited for.
      db.abandon();
    }
  } catch (error) {
    const before = readLastAttempt(home, target.shown);
    const retry = before?.next_retry_at && Date.parse(before.next_retry_at) > Date.now() ? { next_retry_at: before.next_retry_at } : {};
    recordAttempt(home, { remote: target.shown, at, ok: false, reason: failureReason(target, error), ...retry });
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
