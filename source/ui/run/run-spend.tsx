import { Text } from 'ink';
import { useStore } from 'zustand';
import type { RunStore } from '../../state/run-store.js';
import { runSpendText } from '../../state/step-cost.js';

/**
 * What this run's model calls cost, when their models are priced, and — after a resume — what the
 * steps it skipped cost when they ran, so were not paid for again.
 */
export function RunSpend({ store }: { store: RunStore }) {
  const dollars = useStore(store, (s) => s.dollars);
  const saving = useStore(store, (s) => s.saving);
  const text = runSpendText(dollars, saving);
  return text ? <Text color="blueBright">{text}</Text> : null;
}
