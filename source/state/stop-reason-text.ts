import type { StopReason } from '../engine/events.js';

const words: Partial<Record<StopReason, string>> = { rate_limit: 'rate limited', context_exhausted: 'context window exhausted', provider_error: 'provider failed', user_exit: 'stopped', disk_full: 'disk full', pattern_limit: 'limit reached', unreadable_answer: 'answer unreadable' };

/** Why a step stopped, in the words the run view and the plain lines both use. */
export function stopReasonText(reason: StopReason): string {
  return words[reason] ?? reason.replaceAll('_', ' ');
}

/** Why a step waits to be retried: "rate limited (HTTP 429)", "provider failed (connection reset)". */
export function retryReasonText(reason: StopReason, detail: string | undefined): string {
  return detail ? `${stopReasonText(reason)} (${detail})` : stopReasonText(reason);
}
