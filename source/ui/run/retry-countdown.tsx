import { Text } from 'ink';
import { useStore } from 'zustand';
import type { RunStore } from '../../state/run-store.js';
import { runBindings } from '../keys/bindings.js';
import { useNow } from './use-elapsed.js';

/** "rate limited — retrying in 41 s, attempt 2/5; r retry now · a abort", ticking each second. */
export function RetryCountdown({ store }: { store: RunStore }) {
  const retry = useStore(store, (s) => s.retry);
  const now = useNow(retry !== null, 250);
  if (!retry) return null;
  const seconds = Math.max(0, Math.ceil((retry.at - now) / 1000));
  return (
    <Text>
      <Text color="yellow">{retry.reason}</Text>
      <Text> — retrying in </Text>
      <Text bold>{seconds} s</Text>
      <Text>, attempt {retry.attempt}/{retry.maxAttempts}; </Text>
      <Text dimColor>
        {runBindings['run.retryNow'].label} · {runBindings['run.abandon'].label}
      </Text>
    </Text>
  );
}
