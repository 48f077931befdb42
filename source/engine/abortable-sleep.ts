import { StepAbortedError } from './stop-errors.js';

/** Waits `ms`, or rejects with StepAbortedError as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new StepAbortedError());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new StepAbortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with full jitter, capped: attempt 1 → up to 1 s, 2 → 2 s, … ≤ 60 s. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
