import { createContext, useContext, useEffect, useState } from 'react';

/**
 * The clock the run's times come from: the run store's (RunView provides it), so an elapsed time is
 * measured on the clock its start was stamped with.
 */
export const RunClock = createContext<() => number>(Date.now);

/** The run's clock (or `wall`, for times that came as dates), re-read every `intervalMs` while `ticking`. */
export function useNow(ticking: boolean, intervalMs: number, wall?: () => number): number {
  const runClock = useContext(RunClock);
  const clock = wall ?? runClock;
  const [now, setNow] = useState(() => clock());
  useEffect(() => {
    if (!ticking) return;
    setNow(clock());
    const timer = setInterval(() => setNow(clock()), intervalMs);
    return () => clearInterval(timer);
  }, [ticking, intervalMs, clock]);
  return now;
}

/** Milliseconds since `startedAt`, ticking every `intervalMs` until `finishedAt` is set. */
export function useElapsed(startedAt: number, finishedAt: number | undefined, intervalMs = 100): number {
  const now = useNow(finishedAt === undefined, intervalMs);
  return (finishedAt ?? now) - startedAt;
}
