import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { onEveryBeat } from '../../engine/beat.js';

/** One tick of the run view: the run's clock and the wall clock, read once for every row drawn in it. */
export interface Tick {
  /** Counts ticks: when the streamed tail reads its text again. */
  frame: number;
  /** The run's clock (the run store's: an elapsed time is measured on the clock its start was stamped with). */
  now: number;
  /** The wall clock, for times that came as dates (a retry's). */
  wall: number;
}

const RunTick = createContext<Tick>({ frame: 0, now: Date.now(), wall: Date.now() });

/**
 * Ticks on every beat (engine/beat.ts, 100 ms) while the run is `live` — elapsed times, a
 * countdown and the streamed text move on one tick (a running step's spinner is ink-spinner's, on a
 * timer of its own: docs/benchmarks.md): each timer of its own is a frame of its own
 * (Ink draws the whole view every frame), and the beat is the one on which resting streams are read
 * too, one wake-up for both. One state change a tick, so every component that
 * reads the tick is redrawn in one frame; the rest of the tree is not rendered again.
 */
export function TickProvider({ clock, live, children }: { clock: () => number; live: boolean; children: ReactNode }) {
  const [tick, setTick] = useState<Tick>(() => ({ frame: 0, now: clock(), wall: Date.now() }));
  useEffect(() => {
    const read = () => setTick((last) => ({ frame: last.frame + 1, now: clock(), wall: Date.now() }));
    read();
    if (!live) return;
    return onEveryBeat(read);
  }, [live, clock]);
  return <RunTick.Provider value={tick}>{children}</RunTick.Provider>;
}

/** The latest tick: a component reading it is redrawn on every tick. */
export function useTick(): Tick {
  return useContext(RunTick);
}
