import { Box, Text } from 'ink';
import Spinner from 'ink-spinner';
import type { StepView } from '../../state/run-store.js';
import { formatCount, formatDuration } from '../../human-units.js';
import { stepColor, stepGlyph } from '../theme.js';

/** One chain step: glyph (spinner while running), number, agent, then what is known of it. */
export function StepRow({ step }: { step: StepView }) {
  const detail =
    step.status === 'done' && step.tokens
      ? `${formatDuration(step.durationMs ?? 0)} · ${formatCount(step.tokens.input)} in / ${formatCount(step.tokens.output)} out`
      : step.status === 'skipped'
        ? 'completed earlier'
        : step.status === 'running' && step.attempt > 1
          ? `attempt ${step.attempt}`
          : '';
  return (
    <Box gap={1}>
      <Text color={stepColor[step.status]}>{step.status === 'running' ? <Spinner type="dots" /> : stepGlyph[step.status]}</Text>
      <Text dimColor={step.status === 'pending' || step.status === 'skipped'}>
        {String(step.index + 1).padStart(3)} {step.agent}
      </Text>
      {detail ? <Text dimColor>{detail}</Text> : null}
      {step.note ? <Text color={step.status === 'failed' ? 'red' : 'yellow'}>{step.note}</Text> : null}
    </Box>
  );
}
