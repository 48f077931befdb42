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
    /** What went wrong in a few words, for the countdown: "HTTP 429", "HTTP 529". */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** How a provider failure may be retried, when it knows better than the usual backoff. */
export interface RetryAdvice {
  /** What went wrong in a few words, for the countdown: "HTTP 502", "connection reset". */
  detail?: string;
  /** The wait before the retry; absent: exponential backoff. */
  retryAfterMs?: number;
  /** Automatic retries worth making (a server that refuses connections on this machine is not starting by itself). */
  retryLimit?: number;
}

export class ContextExhaustedError extends Error {
  override readonly name = 'ContextExhaustedError';
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly advice: RetryAdvice = {},
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
