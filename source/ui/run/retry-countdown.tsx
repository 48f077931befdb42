import { useStore } from 'zustand';
import type { RunStore } from '../../state/run-store.js';
import { LineText } from '../browser/line-text.js';
import { countdownLine } from './below-lines.js';
import { useTick } from './run-tick.js';

/** The countdown of a wait before an automatic retry, ticking each second (below-lines.ts says it). */
export function RetryCountdown({ store }: { store: RunStore }) {
  const retry = useStore(store, (s) => s.retry);
  // The retry's time came as a date in its event: counted down on the wall clock — from when the wait
  // was announced until a tick comes after it (the last tick, up to 100 ms older, read "42 s" for 41).
  const { wall } = useTick();
  if (!retry) return null;
  const seconds = Math.max(0, Math.ceil((retry.at - Math.max(wall, retry.since)) / 1000));
  return <LineText line={countdownLine(retry, seconds)} wrap="wrap" />;
}
