import { useEffect, useState } from 'react';

/** How often the ages in the table move: each second while one reads in seconds, else each 30 s (they read in minutes or more). */
export function clockInterval(newestUpdate: number, now: number): number {
  return now - newestUpdate < 60_000 ? 1000 : 30_000;
}

/**
 * The time the table's "updated" ages are drawn at, ticking so that "5s ago" does not stay 5s while
 * the browser sits idle; `fixed` (tests) stops it. `newestUpdate`: the newest row's update time, in ms.
 */
export function useClock(fixed: number | undefined, newestUpdate: number): number {
  const [now, setNow] = useState(() => fixed ?? Date.now());
  useEffect(() => {
    if (fixed !== undefined) return undefined;
    const timer = setTimeout(() => setNow(Date.now()), clockInterval(newestUpdate, Date.now()));
    return () => clearTimeout(timer);
  }, [fixed, newestUpdate, now]);
  return fixed ?? now;
}
