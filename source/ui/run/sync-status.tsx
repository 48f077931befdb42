import { Text } from 'ink';
import { useStore } from 'zustand';
import type { RunStore } from '../../state/run-store.js';
import { syncLine } from '../../state/sync-line.js';
import { useTick } from './run-tick.js';

/**
 * The session's push to the team store while it cannot reach it: `sync: DEGRADED — 5 events
 * pending · last attempt 10 s ago · next retry in 30 s · connection refused`, its times moving on
 * the view's tick. Nothing while all is well, or without a store.
 */
export function SyncStatus({ store }: { store: RunStore }) {
  const sync = useStore(store, (s) => s.sync);
  const { wall } = useTick();
  const line = syncLine(sync ?? undefined, wall);
  return line ? <Text color="yellow">{line}</Text> : null;
}
