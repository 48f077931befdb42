import type { StopReason } from './events.js';

/** Ends a run early with a recorded outcome, not as a crash; `awaiting`: the status is already AWAITING_APPROVAL. */
export class StopRun extends Error {
  constructor(
    readonly outcome: 'paused' | 'failed' | 'cancelled' | 'awaiting',
    readonly reason: StopReason,
    message: string,
  ) {
    super(message);
  }
}

/** Why a step whose own input overflows the model's context pauses, and what to do. */
export function ownInputTooLong(title: string, message: string): string {
  return `${title}: the step's own input does not fit the model's context (${message}); shorten the input, or use a model with a larger context, then resume`;
}

/** How a stop ranks when several steps stop at once: the session ends the way the gravest says. */
export const stopRank: Record<StopRun['outcome'], number> = { awaiting: 0, paused: 1, failed: 2, cancelled: 3 };
