// Imported first by a bench program: counts the timer callbacks the process runs (each a wake-up
// of an idle process: the run view's beat, Ink's throttles, a spinner's own interval).
let fired = 0;

const { setInterval: every, setTimeout: after } = globalThis;
globalThis.setInterval = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
  every((...a: unknown[]) => {
    fired++;
    fn(...a);
  }, ms, ...args)) as typeof setInterval;
globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
  after((...a: unknown[]) => {
    fired++;
    fn(...a);
  }, ms, ...args)) as typeof setTimeout;

/** Timer callbacks run so far. */
export const timersFired = (): number => fired;
