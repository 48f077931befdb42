import { Text } from 'ink';
import { useStore } from 'zustand';
import type { RunStore } from '../../state/run-store.js';
import { runBindings } from '../keys/bindings.js';
import { useTick } from './run-tick.js';

/**
 * "rate limited (HTTP 429) — retry 2/5 in 41 s; r retry now · a abort", ticking each second. It counts
 * retries, not attempts: the step's first try is not one, so its 6th attempt is "retry 5/5".
 */
export function RetryCountdown({ store }: { store: RunStore }) {
  const retry = useStore(store, (s) => s.retry);
  // The retry's time came as a date in its event: counted down on the wall clock — from when the wait
  // was announced until a tick comes after it (the last tick, up to 100 ms older, read "42 s" for 41).
  const { wall } = useTick();
  if (!retry) return null;
  const seconds = Math.max(0, Math.ceil((retry.at - Math.max(wall, retry.since)) / 1000));
  return (
    <Text>
      <Text color="yellow">{retry.reason}</Text>
      <Text>
        {' '}
        — retry {retry.attempt}/{retry.maxAttempts} in{' '}
      </Text>
      <Text bold>{seconds} s</Text>
      <Text>; </Text>
      <Text dimColor>
        {runBindings['run.retryNow'].label} · {runBindings['run.abandon'].label}
      </Text>
    </Text>
  );
}
