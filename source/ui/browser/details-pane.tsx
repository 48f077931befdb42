import { Box, Text } from 'ink';
import { useStore } from 'zustand';
import type { BrowserStore, StepStatusView } from '../../state/browser-store.js';

const glyph: Record<StepStatusView['status'], [string, string]> = {
  done: ['✓', 'green'],
  failed: ['✗', 'red'],
  running: ['●', 'cyan'],
  interrupted: ['✗', 'yellow'],
  awaiting: ['◆', 'magenta'],
  pending: ['○', 'gray'],
};

/** The selected session: its steps, last response, why it stopped and who holds its lock. */
export function DetailsPane({ store, width }: { store: BrowserStore; width: number }) {
  const details = useStore(store, (s) => s.details);
  if (!details) return <Text dimColor>no session selected</Text>;
  if (details.damaged) return <Text color="red">damaged: {details.damaged}</Text>;
  const shown = details.steps.slice(0, 24);
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        {shown.map((step) => (
          <Text key={step.index} color={glyph[step.status][1]}>
            {glyph[step.status][0]} {step.agent}{'  '}
          </Text>
        ))}
        {details.steps.length > shown.length ? <Text dimColor>… {details.steps.length - shown.length} more</Text> : null}
      </Text>
      <Text wrap="truncate-end">
        <Text dimColor>last response </Text>
        {details.lastResponse.replace(/\s+/g, ' ') || '—'}
      </Text>
      <Text wrap="truncate-end">
        <Text dimColor>stopped </Text>
        {details.stopReason ? `${details.stopReason}${details.error ? `: ${details.error}` : ''}` : '—'}
        <Text dimColor>   lock </Text>
        {details.lock ?? 'none'}
      </Text>
    </Box>
  );
}
