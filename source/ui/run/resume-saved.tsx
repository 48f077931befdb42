import { Text } from 'ink';
import { useStore } from 'zustand';
import type { RunStore } from '../../state/run-store.js';
import { resumeSavingText } from '../../state/step-cost.js';

/** After a resume: what the steps it skipped cost when they ran, so were not paid for again. */
export function ResumeSaved({ store }: { store: RunStore }) {
  const saving = useStore(store, (s) => s.saving);
  if (saving.steps === 0) return null;
  return <Text color="blueBright">{resumeSavingText(saving)}</Text>;
}
