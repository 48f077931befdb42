import { Box, render, Text } from 'ink';

// The floor for the browser's first-frame figure: a bare Ink app printing 30 rows, nothing loaded.
render(
  <Box flexDirection="column">
    {Array.from({ length: 30 }, (_, i) => (
      <Text key={i}>row {i} · a line of text about as long as one row of the session table, padded</Text>
    ))}
  </Box>,
);
