import { join } from 'node:path';
import type { SyncView } from '../../state/sync-line.js';
import type { SessionSummary } from '../session-record.js';
import type { RemoteConnection } from './remote-client.js';
import type { RemoteClaim } from './remote-claim.js';
import type { LeaseClaim, RemoteHolder } from './remote-lease.js';
import type { RemoteTarget } from './remote-url.js';
import { readOutbox } from './session-outbox.js';
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
   * pushes what the run appended since and lets the lease go, for at most finalPushMs; if it did
   * not answer, returns at once (`acode sync` pushes it later; the lease lapses).
   */
  stop(): Promise<void>;
  /** What the run's faces show of it now. */
  view(): SyncView;
  /** Hears each change of the view (an attempt made). */
  onChange(listener: (view: SyncView) => void): void;
  /** The store's lease as this run holds it: `lost()` names who took it, once another process has. */
  readonly lease: RemoteLeaseState;
}

/** Whether the run still holds the store's lease of its session: never asked of the network on the step path. */
export interface RemoteLeaseState {
  /** Who holds it instead, once this run has lost it (said in words); undefined while it holds it or cannot tell. */
  lost(): string | undefined;
  /** Called once, when another process is found holding the lease. */
  onLost(listener: () => void): void;
  /** The lock epoch the run stamps on its events: the lease carries it (raised, never lowered). */
  raiseEpoch(epoch: number): void;
}

export interface PushOptions {
  /** The store's connection and lease a resume took before the run (else the push connects and takes the lease itself). */
  claim?: RemoteClaim;
  /** The run's lock epoch. */
  epoch: number;
  /** resume.lock_timeout_seconds, in ms: a lease silent that long is stale. */
  timeoutMs: number;
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
 * jittered) and is recorded for `acode status` with the reason and the next retry. Each tick that
 * reaches the store also beats the session's lease there (taking it when the store came back after
 * a resume that could not reach it); a lease found held by another process is lost for good, and
 * the run is told (it stops, as when its lock file is taken). `pg` is loaded at the first tick, not before.
 */
export function startBackgroundPush(home: string, target: RemoteTarget, sessionId: string, summary: () => Promise<SessionSummary>, options: PushOptions): BackgroundPush {
  const dir = join(home, 'sessions', sessionId);
  let db: RemoteConnection | undefined = options.claim?.db;
  let checked = db !== undefined;
  let claim: LeaseClaim | undefined = options.claim?.claim;
  let lostTo: RemoteHolder | undefined;
  const lostListeners: (() => void)[] = [];
  const listeners: ((view: SyncView) => void)[] = [];
  let failures = 0;
  let lastOk = false;
  let attempts = 0;
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** The wait before the next attempt, drawn once: what status shows as the next retry is when it comes. */
  let nextDelay = nextDelayMs(0);
  let view: SyncView = { state: 'up_to_date', pending: 0 };
  const publish = (next: SyncView) => {
    view = next;
    for (const listener of listeners) listener(view);
  };

  const attempt = async (): Promise<void> => {
    const at = Date.now();
    attempts++;
    try {
      const [{ connectRemote }, { requireCurrentSchema }, { pushSession }, { holdLease, newClaim }] = await Promise.all([
        import('./remote-client.js'),
        import('./schema-migrate.js'),
        import('./replicator.js'),
        import('./remote-lease.js'),
      ]);
      if (!db) {
        db = await connectRemote(target);
        checked = false;
      }
      if (!checked) {
        await requireCurrentSchema(db, target.shown);
        checked = true;
      }
      const pushed = await pushSession(db, dir, await summary(), target.shown);
      if (!lostTo) {
        claim ??= newClaim(home, options.epoch);
        const held = await holdLease(db, sessionId, claim, options.timeoutMs);
        if (!held.held) {
          lostTo = 'holder' in held ? held.holder : { host: 'another machine', pid: 0, home: '', epoch: held.epochBelow, token: '', proc_start: null, taken_at: '', heartbeat_at: '', silent_s: 0 };
          for (const listener of lostListeners.splice(0)) listener();
        }
      }
      failures = 0;
      lastOk = true;
      nextDelay = nextDelayMs(0);
      recordAttempt(home, { remote: target.shown, at: new Date(at).toISOString(), ok: true, reason: null });
      publish({ state: 'up_to_date', pending: pushed.pending_events, lastAttemptAt: at });
    } catch (error) {
      failures++;
      lastOk = false;
      nextDelay = nextDelayMs(failures);
      const { failureReason, shortReason } = await import('./remote-client.js');
      const nextAt = Date.now() + nextDelay;
      const next = stopped ? {} : { next_retry_at: new Date(nextAt).toISOString() };
      recordAttempt(home, { remote: target.shown, at: new Date(at).toISOString(), ok: false, reason: failureReason(target, error), ...next });
      let pending = view.pending;
      try {
        pending = readOutbox(dir, target.shown).pendingCount;
      } catch {
        // A log that cannot be read: the run says so itself.
      }
      publish({ state: 'degraded', pending, lastAttemptAt: at, ...(stopped ? {} : { nextRetryAt: nextAt }), reason: shortReason(target, error) });
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
  // The first tick comes after the interval, a new run's too: loading pg, connecting and the first
  // push then happen while a long run runs, and after a short one's steps (as it stops), never
  // while its first steps start. A resume has just pushed and taken the lease before it.
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
        if (lastOk && db && claim && !lostTo) {
          const { releaseLease } = await import('./remote-lease.js');
          await releaseLease(db, sessionId, claim).catch(() => {});
        }
        done = true;
      })();
      await Promise.race([last, deadline]);
      // A push still under way past the deadline is cut off with the process (the cursor only ever moves past stored events).
      if (done && db) await db.close();
    },
    view: () => view,
    onChange(listener) {
      listeners.push(listener);
    },
    lease: {
      lost: () => {
        if (!lostTo) return undefined;
        const { host, pid, home: where } = lostTo;
        return pid > 0 ? `pid ${pid} on ${host}${where ? ` (ACODE_HOME ${where})` : ''}` : `a process of a higher epoch (${lostTo.epoch}) on ${host}`;
      },
      onLost(listener) {
        if (lostTo) listener();
        else lostListeners.push(listener);
      },
      raiseEpoch(epoch) {
        if (claim) claim.epoch = Math.max(claim.epoch, epoch);
      },
    },
  };
}
