import { Box, Text } from 'ink';
import { memo, useMemo } from 'react';
import { useStore } from 'zustand';
import type { StepId } from '../../engine/step-id.js';
import type { RunStore } from '../../state/run-store.js';
import { lastRows, toolLinePrefix } from '../../state/step-streams.js';
import { useTerminalSize } from '../browser/use-terminal-size.js';
import { useTick } from './run-tick.js';

/** What each row of the tail starts with: a line down its left side. */
const gutter = '│ ';

/**
 * The last rows of what a running step's model is saying, as it arrives; tool calls it starts in
 * yellow. The text is read as a frame is drawn: its first words at once, then on every tick of the
 * run view, with the elapsed times — never a frame of its own. It moves on only as often as a stream is
 * read (every other tick, providers/event-stream.ts), and rows are worked out only when it did.
 */
export function StreamTail({ store, step, indent, rows: most }: { store: RunStore; step: StepId; indent: number; rows: number }) {
  const begun = useStore(store, (s) => s.streams[step] !== undefined);
  const { frame } = useTick();
  const { columns } = useTerminalSize();
  // Rows fit beside the gutter however narrow the terminal: the rows' one Text would wrap a longer one.
  const width = Math.max(1, columns - indent - gutter.length - 1);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- `frame` is the point: the text is read again on each tick (the same string while it has not moved on)
  const text = useMemo(() => (begun ? store.getState().streamText(step) : undefined), [begun, frame, store, step]);
  const rows = useMemo(() => (text && most > 0 ? lastRows(text, width, most) : []), [text, width, most]);
  if (rows.length === 0) return null;
  return <TailRows rows={rows} indent={indent} />;
}

/**
 * The rows drawn: the same rows (a tick on which the text is not read again) are not rendered again.
 * Rows of text are one Text node, the gutter written into it — one node to lay out, measure and
 * draw each frame, where a Box's border is built again by Ink every frame and six Texts are six
 * nodes; rows fit the width already (lastRows), so it never wraps. Tool calls, in their own colour,
 * take a node a row while one shows.
 */
const TailRows = memo(function TailRows({ rows, indent }: { rows: readonly string[]; indent: number }) {
  const tools = rows.some((row) => row.startsWith(toolLinePrefix));
  return (
    <Box flexDirection="column" marginLeft={indent}>
      {tools ? (
        rows.map((row, i) =>
          row.startsWith(toolLinePrefix) ? (
            <Text key={i} wrap="truncate-end">
              <Text dimColor>{gutter}</Text>
              <Text color="yellow">{row}</Text>
            </Text>
          ) : (
            <Text key={i} wrap="truncate-end" dimColor>
              {gutter + row}
            </Text>
          ),
        )
      ) : (
        <Text dimColor>{rows.map((row) => gutter + row).join('\n')}</Text>
      )}
    </Box>
  );
});

/**
 * With several steps running at once (workflow levels, parallel branches), one stream is shown: the
 * one that last said something, named — several interleaved would be unreadable, and each would
 * need its own rows in a live area that must fit the terminal.
 */
export function LatestStream({ store, rows }: { store: RunStore; rows: number }) {
  const step = useStore(store, (s) => (s.latestStream && s.streams[s.latestStream] ? s.latestStream : null));
  const title = useStore(store, (s) => s.steps.find((candidate) => candidate.id === step)?.title);
  if (step === null || rows === 0) return null;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text color="cyan" wrap="truncate-end">
        ▸ {title ?? step}
      </Text>
      <StreamTail store={store} step={step} indent={2} rows={rows} />
    </Box>
  );
}
