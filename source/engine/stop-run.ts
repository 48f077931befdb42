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
