import { Box, Text } from 'ink';
import type { Line } from './browser-lines.js';

/** One line of the browser, cut at the terminal's edge. */
export function LineText({ line }: { line: Line }) {
  return (
    <Text wrap="truncate-end">
      {line.map((segment, i) => (
        <Text key={i} color={segment.color} dimColor={segment.dim} bold={segment.bold} underline={segment.underline} inverse={segment.inverse}>
          {segment.text}
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
