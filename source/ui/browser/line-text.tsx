import { Box, Text } from 'ink';
import { terminalText } from '../../printable-text.js';
import type { Line } from './browser-lines.js';

/**
 * One line of segments, cut at the terminal's edge (the browser's), or wrapped as words (`wrap`: the
 * run view's lines under its steps). A segment's text may come from a model or a spec: no control
 * character or escape sequence of it reaches the terminal (Ink passes a title or a link through).
 */
export function LineText({ line, wrap = 'truncate-end' }: { line: Line; wrap?: 'truncate-end' | 'wrap' }) {
  return (
    <Text wrap={wrap}>
      {line.map((segment, i) => (
        <Text key={i} color={segment.color} dimColor={segment.dim} bold={segment.bold} underline={segment.underline} inverse={segment.inverse}>
          {terminalText(segment.text)}
        </Text>
      ))}
    </Text>
  );
}

/** Lines, one under the other. */
export function Lines({ lines, width }: { lines: readonly Line[]; width?: number }) {
  return (
    <Box flexDirection="column" width={width}>
      {lines.map((line, i) => (
        <LineText key={i} line={line} />
      ))}
    </Box>
  );
}
