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
