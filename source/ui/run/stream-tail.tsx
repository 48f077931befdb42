import { Box, Text } from 'ink';
import { useStore } from 'zustand';
import type { StepId } from '../../engine/step-id.js';
import type { RunStore } from '../../state/run-store.js';
import { lastRows, toolLinePrefix } from '../../state/step-streams.js';
import { useTerminalSize } from '../browser/use-terminal-size.js';
import { useNow } from './use-elapsed.js';

/** Rows of a running step's streamed answer shown under it: its latest words, never more. */
export const streamRows = 6;
/** How often streamed text is redrawn after its first words (which show at once): 5 frames a second. */
export const streamTickMs = 200;

/**
 * The last rows of what a running step's model is saying, as it arrives; tool calls it starts in
 * yellow. The text is read as the frame is drawn: on the step's own tick (`tick`, the time its row
 * shows, so row and text share one frame) or, without one, a tick of its own.
 */
export function StreamTail({ store, step, indent, tick }: { store: RunStore; step: StepId; indent: number; tick?: number }) {
  const begun = useStore(store, (s) => s.streams[step] !== undefined);
  useNow(begun && tick === undefined, streamTickMs);
  const { columns } = useTerminalSize();
  const text = begun ? store.getState().streamText(step) : undefined;
  if (!text) return null;
  const rows = lastRows(text, Math.max(10, columns - indent - 3), streamRows);
  return (
    <Box flexDirection="column" marginLeft={indent}>
      {rows.map((row, i) => (
        <Text key={i} wrap="truncate-end">
          <Text dimColor>│ </Text>
          {row.startsWith(toolLinePrefix) ? <Text color="yellow">{row}</Text> : <Text dimColor>{row}</Text>}
        </Text>
      ))}
    </Box>
  );
}

/**
 * With several steps running at once (workflow levels, parallel branches), one stream is shown: the
 * one that last said something, named — several interleaved would be unreadable, and each would
 * need its own rows in a live area that must fit the terminal.
 */
export function LatestStream({ store }: { store: RunStore }) {
  const step = useStore(store, (s) => (s.latestStream && s.streams[s.latestStream] ? s.latestStream : null));
  const title = useStore(store, (s) => s.steps.find((candidate) => candidate.id === step)?.title);
  if (step === null) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text color="cyan">▸ {title ?? step}</Text>
      <StreamTail store={store} step={step} indent={2} />
    </Box>
  );
}
