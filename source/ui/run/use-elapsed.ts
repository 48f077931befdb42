import { useEffect, useState } from 'react';

/** The wall clock, re-read every `intervalMs` while `ticking`. */
export function useNow(ticking: boolean, intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [ticking, intervalMs]);
  return now;
}

/** Milliseconds since `startedAt`, ticking every `intervalMs` until `finishedAt` is set. */
export function useElapsed(startedAt: number, finishedAt: number | undefined, intervalMs = 100): number {
  const now = useNow(finishedAt === undefined, intervalMs);
  return (finishedAt ?? now) - startedAt;
}
