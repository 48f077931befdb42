/**
 * Provider failures, classified by what a continuation must do about them. Providers throw these;
 * the executor decides whether to wait, pause or fail.
 */
export class RateLimitError extends Error {
  override readonly name = 'RateLimitError';
  constructor(
    message: string,
    /** From retry-after headers or the scripted fault; undefined means back off exponentially. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export class ContextExhaustedError extends Error {
  override readonly name = 'ContextExhaustedError';
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The step was abandoned because the person asked to stop (Ctrl+C, SIGTERM). */
export class StepAbortedError extends Error {
  override readonly name = 'StepAbortedError';
  constructor() {
    super('step abandoned: the session was asked to stop');
  }
}
