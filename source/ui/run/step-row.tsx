import { Box, Text } from 'ink';
import Spinner from 'ink-spinner';
import type { StepView } from '../../state/run-store.js';
import { formatCount, formatDuration } from '../../human-units.js';
import { stepColor, stepGlyph } from '../theme.js';
import { active } from './run-lanes.js';
import { useTick } from './run-tick.js';

/** How long the running attempt has taken so far, as of the latest tick. */
function Elapsed({ since }: { since: number }) {
  return <Text dimColor>{formatDuration(Math.max(0, useTick().now - since))}</Text>;
}

/**
 * One step: glyph (ink-spinner's "dots" while running and `spinner`; a lane spins only its first
 * running row, as each spinner is a timer of its own: docs/benchmarks.md), its name — the chain number, or, inside a lane,
 * `name` (task id, number in the branch) padded to `nameWidth` — the agent, then what is known of
 * it; while it runs, its elapsed time.
 */
export function StepRow({ step, name, nameWidth = 0, indent = 0, live = false, spinner = true }: { step: StepView; name?: string; nameWidth?: number; indent?: number; live?: boolean; spinner?: boolean }) {
  const detail =
    step.status === 'done' && step.tokens
      ? // An approval asked a person, not a model: its time, no tokens.
        step.agent === 'approval' && step.tokens.input + step.tokens.output === 0
        ? formatDuration(step.durationMs ?? 0)
        : `${formatDuration(step.durationMs ?? 0)} · ${formatCount(step.tokens.input)} in / ${formatCount(step.tokens.output)} out`
      : step.status === 'skipped'
        ? step.reused
          ? 'reused'
          : 'completed earlier'
        : step.status === 'running' && step.retry
          ? `retry ${step.retry.n}/${step.retry.max}`
          : step.status === 'running' && step.attempt > 1
            ? `attempt ${step.attempt}`
            : '';
  const noteColor = step.status === 'failed' ? 'red' : 'yellow';
  // One Text, one node to lay out a frame (a Box of Texts overflowed a narrow terminal and split
  // words). A row in the live area (`live`: a finished step of a lane still running; every step
  // under way or pending) keeps to one row, cut at the terminal's width (the live area is budgeted a
  // row a step, live-rows.ts): a long tool path, a long task id. A finished row goes above the frame
  // for good: its note (a failure's reason) whole, wrapped as words.
  const oneRow = live || active(step) || step.status === 'pending';
  return (
    <Box marginLeft={indent}>
      <Text wrap={oneRow ? 'truncate-end' : 'wrap'}>
        <Text color={stepColor[step.status]}>{step.status === 'running' && spinner ? <Spinner type="dots" /> : stepGlyph[step.status]}</Text>{' '}
        <Text dimColor={step.status === 'pending' || step.status === 'skipped'}>
          {name === undefined ? String(step.index + 1).padStart(3) : name.padEnd(nameWidth)} {step.agent}
        </Text>
        {step.status === 'running' && step.startedAt !== undefined ? (
          <>
            {' '}
            <Elapsed since={step.startedAt} />
          </>
        ) : null}
        {detail ? <Text dimColor> {detail}</Text> : null}
        {step.note ? <Text color={noteColor}> {step.note}</Text> : null}
      </Text>
    </Box>
  );
}
