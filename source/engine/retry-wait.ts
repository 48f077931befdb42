/** How a wait before an automatic retry ended. */
export type WaitEnd = 'elapsed' | 'now' | 'abandon' | 'cancelled';

/** The countdown before an automatic retry: it elapses, or the person retries now, abandons, or stops the run. */
export class RetryWait {
  readonly done: Promise<WaitEnd>;
  private finish!: (end: WaitEnd) => void;

  constructor(ms: number, signal: AbortSignal) {
    this.done = new Promise<WaitEnd>((resolve) => {
      const timer = setTimeout(() => this.finish('elapsed'), ms);
      const onAbort = () => this.finish('cancelled');
      this.finish = (end) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(end);
      };
      if (signal.aborted) return this.finish('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  end(how: 'now' | 'abandon'): void {
    this.finish(how);
  }
}
