import { plural } from '../human-units.js';

/** What a run's view shows of its session's push to the team store (FR-046…050). */
export interface SyncView {
  /** `up_to_date`: every event the run wrote is in the store; `degraded`: the last attempt failed. */
  state: 'up_to_date' | 'degraded';
  /** Events of the session not yet in the store. */
  pending: number;
  /** When the last attempt was made (ms since epoch). */
  lastAttemptAt?: number;
  /** When the next one comes (ms since epoch), while degraded. */
  nextRetryAt?: number;
  /** Why the last attempt failed, in a few words ("connection refused"). */
  reason?: string;
}

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;

/**
 * The line every face of a run shows while its session cannot reach the store — the run view, the
 * plain lines, the browser: `sync: DEGRADED — 5 events pending · last attempt 10 s ago · next retry
 * in 30 s · connection refused`. Undefined while all is well (nothing to show).
 */
export function syncLine(view: SyncView | undefined, now = Date.now()): string | undefined {
  if (!view || view.state !== 'degraded') return undefined;
  const parts = [`sync: DEGRADED — ${plural(view.pending, 'event')} pending`];
  if (view.lastAttemptAt !== undefined) parts.push(`last attempt ${seconds(now - view.lastAttemptAt)} ago`);
  if (view.nextRetryAt !== undefined) parts.push(view.nextRetryAt > now ? `next retry in ${seconds(view.nextRetryAt - now)}` : 'retrying now');
  if (view.reason) parts.push(view.reason);
  return parts.join(' · ');
}
