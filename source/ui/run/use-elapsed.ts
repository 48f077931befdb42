import { useEffect, useState } from 'react';

/** Milliseconds since `startedAt`, ticking every `intervalMs` until `finishedAt` is set. */
export function useElapsed(startedAt: number, finishedAt: number | undefined, intervalMs = 100): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (finishedAt !== undefined) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [finishedAt, intervalMs]);
  return (finishedAt ?? now) - startedAt;
}
