import { join } from 'node:path';
import type { SessionSummary } from '../session-record.js';
import type { RemoteConnection } from './remote-client.js';
import type { RemoteTarget } from './remote-url.js';
import { recordAttempt } from './sync-state.js';

/** How often a run's events are pushed while the store answers. */
export const pushIntervalMs = 2000;
/** The longest wait between attempts while the store does not answer. */
export const maxBackoffMs = 60_000;
/** How long a run's process may wait, once the run has ended, for its last events to reach a store that answered. */
export const finalPushMs = 2000;

/** A run's background push: stopped once the run has ended. */
export interface BackgroundPush {
  /**
   * Stops the timer. If the store answered the last attempt (or none was made yet: a short run),
   * pushes what the run appended since, for at most finalPushMs; if it did not answer, returns at
   * once (`acode sync` pushes it later).
   */
  stop(): Promise<void>;
}

/** The delay before attempt `failures + 1`: the interval while all is well, then doubling from 1 s up to the cap, each with ±50% jitter. */
export function nextDelayMs(failures: number, random: () => number = Math.random): number {
  const base = failures === 0 ? pushIntervalMs : Math.min(maxBackoffMs, 1000 * 2 ** (failures - 1));
  return Math.round(base * (0.5 + random()));
}

/**
 * Pushes one session's events to the team store from the process that runs it, on a timer and
 * never on the step path: each tick is a promise nobody awaits, the timer does not keep the process
 * alive, and a store that does not answer only lengthens the wait before the next try (capped,
 * jittered) and is recorded for `acode status` with the reason and the next retry. `pg` is loaded
 * at the first tick, not before.
 */
export function startBackgroundPush(home: string, target: RemoteTarget, sessionId: string, summary: () => Promise<SessionSummary>): BackgroundPush {
  const dir = join(home, 'sessions', sessionId);
  let db: RemoteConnection | undefined;
  let failures = 0;
  let lastOk = false;
  let attempts = 0;
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** The wait before the next attempt, drawn once: what status shows as the next retry is when it comes. */
  let nextDelay = nextDelayMs(0);

  const attempt = async (): Promise<void> => {
    const at = new Date().toISOString();
    attempts++;
    try {
      const [{ connectRemote }, { requireCurrentSchema }, { pushSession }] = await Promise.all([import('./remote-client.js'), import('./schema-migrate.js'), import('./replicator.js')]);
      if (!db) {
        db = await connectRemote(target);
        await requireCurrentSchema(db, target.shown);
      }
      await pushSession(db, dir, await summary(), target.shown);
      failures = 0;
      lastOk = true;
      nextDelay = nextDelayMs(0);
      recordAttempt(home, { remote: target.shown, at, ok: true, reason: null });
    } catch (error) {
      failures++;
      lastOk = false;
      nextDelay = nextDelayMs(failures);
      const { failureReason } = await import('./remote-client.js');
      const next = stopped ? {} : { next_retry_at: new Date(Date.now() + nextDelay).toISOString() };
      recordAttempt(home, { remote: target.shown, at, ok: false, reason: failureReason(target, error), ...next });
      const broken = db;
      db = undefined;
      await broken?.close();
    }
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = attempt().finally(() => {
        running = undefined;
        schedule(nextDelay);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(nextDelay);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, finalPushMs).unref());
      let done = false;
      const last = (async () => {
        await running;
        if (lastOk || attempts === 0) await attempt();
        done = true;
      })();
      await Promise.race([last, deadline]);
      // A push still under way past the deadline is cut off with the process (the cursor only ever moves past stored events).
      if (done && db) await db.close();
    },
  };
}
