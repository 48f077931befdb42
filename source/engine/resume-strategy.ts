import { backoffMs } from './abortable-sleep.js';
import type { StopReason } from './events.js';
import { ContextExhaustedError, ProviderError, RateLimitError, StepAbortedError } from './stop-errors.js';

/** Why a step attempt stopped, as a continuation sees it. */
export interface Stop {
  reason: Extract<StopReason, 'rate_limit' | 'context_exhausted' | 'user_exit' | 'provider_error'>;
  /** Known for rate limits whose answer said when to come back, and for quick retries of a local server. */
  retryAfterMs?: number;
  /** What went wrong in a few words ("HTTP 429", "connection refused"), for the countdown. */
  detail?: string;
  /** Automatic retries worth making for this failure, below the policy's cap. */
  retryLimit?: number;
  /** False for failures waiting cannot fix (bad key, exhausted quota, unknown model). */
  retryable: boolean;
  message: string;
}

/** Classifies what a step attempt threw: RateLimit, ContextExhausted, UserExit, or Unknown (provider_error). */
export function classifyStop(error: unknown, cancelled: boolean): Stop {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof StepAbortedError || cancelled) return { reason: 'user_exit', retryable: false, message: 'stopped by the user' };
  if (error instanceof RateLimitError) return { reason: 'rate_limit', retryAfterMs: error.retryAfterMs, retryable: true, message, detail: error.detail };
  if (error instanceof ContextExhaustedError) return { reason: 'context_exhausted', retryable: true, message };
  if (error instanceof ProviderError) return { reason: 'provider_error', retryable: error.retryable, message, ...error.advice };
  throw error; // a bug, not a stop: let it surface
}

/** How far acode continues on its own (resume.* config, --no-auto-resume). */
export interface AutoResumePolicy {
  enabled: boolean;
  /** Automatic continuations in a row (without a step completing) before the session pauses. */
  maxAttempts: number;
  /** What an unknown failure (not a rate limit or context overflow) leads to. */
  onUnknown: 'retry' | 'pause' | 'fail';
  /** The wait before automatic retry n, when the spec sets one (runtime.failure_policy); else acode's jittered exponential backoff. */
  delay?: (attempt: number, random: () => number) => number;
  /** Where maxAttempts comes from, for the message that gives up: resume.max_attempts unless the spec says. */
  capName?: string;
}

export const defaultAutoResume: AutoResumePolicy = { enabled: true, maxAttempts: 5, onUnknown: 'retry' };

/**
 * The longest a run waits for a limit to reset before retrying on its own: a day (a usage limit
 * "resets at 3pm" is waited for). A later reset pauses the session at once, saying when — a
 * `retry-after: 1e15` crashed the run (no date that far), and one past Node's longest timer
 * (24.8 days) fired at once: six paid calls in 45 ms.
 */
export const longestRetryWaitMs = 86_400_000;

/** When a wait of `ms` from `now` ends, as a person reads it; "a time too far to name" past the calendar's end. */
function resetTime(ms: number, now: number): string {
  const at = now + ms;
  return Number.isFinite(at) && Math.abs(at) <= 8.64e15 ? new Date(at).toISOString().replace(/\.\d+Z$/, 'Z') : 'a time too far to name';
}

export type Strategy =
  /** Wait, then retry the step in the same conversation. */
  | { kind: 'same_session'; delayMs: number }
  /** Retry the step in a fresh conversation seeded with a summary of the old one. */
  | { kind: 'new_session' }
  /** Stop here, resumable; `why` is said to the person. */
  | { kind: 'pause'; why: string }
  | { kind: 'fail'; why: string };

/**
 * The selector: which continuation a stop gets. `attempt` is the automatic continuation this would
 * be (1-based); past the policy's cap the session pauses instead of looping.
 */
export function selectStrategy(stop: Stop, policy: AutoResumePolicy, attempt: number, random: () => number = Math.random): Strategy {
  if (stop.reason === 'user_exit') return { kind: 'pause', why: 'stopped by the user' };
  if (stop.reason === 'provider_error') {
    if (policy.onUnknown === 'fail') return { kind: 'fail', why: stop.message };
    if (policy.onUnknown === 'pause') return { kind: 'pause', why: `${stop.message} (resume.on_unknown: pause)` };
    if (!stop.retryable) return { kind: 'pause', why: `${stop.message}; waiting will not fix this: fix the cause, then resume` };
  }
  if (!policy.enabled) return { kind: 'pause', why: `${stop.message} (automatic resume is off)` };
  if (attempt > policy.maxAttempts) {
    return { kind: 'pause', why: policy.maxAttempts === 0 ? `${stop.message} (no automatic retry: ${policy.capName ?? 'resume.max_attempts'} is 0)` : `gave up after ${policy.maxAttempts} automatic retries (${stop.message})` };
  }
  if (stop.retryLimit !== undefined && attempt > stop.retryLimit) {
    return { kind: 'pause', why: `${stop.message}; gave up after ${stop.retryLimit} quick ${stop.retryLimit === 1 ? 'retry' : 'retries'}: fix the cause, then resume` };
  }
  if (stop.reason === 'context_exhausted') return { kind: 'new_session' };
  // A wait the server asked for comes first; then the spec's failure_policy, else acode's backoff.
  const delayMs = stop.retryAfterMs ?? (policy.delay ?? backoffMs)(attempt, random);
  if (!(delayMs <= longestRetryWaitMs)) return { kind: 'pause', why: `${stop.message}; the limit resets at ${resetTime(delayMs, Date.now())}, later than acode waits on its own (a day): resume then` };
  return { kind: 'same_session', delayMs };
}

/** One step's automatic continuations in a row (a completed step resets them) and the stop the latest answered. */
export interface StepTries {
  autoAttempts: number;
  lastStop?: Stop;
  /** The automatic retry the next attempt is, as the countdown numbered it. */
  lastRetry?: { n: number; max: number };
}
