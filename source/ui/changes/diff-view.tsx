import { Box, Text, useStdout } from 'ink';
import { useEffect } from 'react';
import { useStore } from 'zustand';
import type { ChangesStore } from '../../state/changes-store.js';
import { diffBindings, hints } from '../keys/bindings.js';

function lineColor(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---')) return 'white';
  if (line.startsWith('+')) return 'green';
  if (line.startsWith('-')) return 'red';
  if (line.startsWith('@@')) return 'cyan';
  return undefined;
}

/** A scrollable, coloured unified diff of one changed file: what the session saw vs. now. */
export function DiffView({ store }: { store: ChangesStore }) {
  const changes = useStore(store, (s) => s.changes);
  const selected = useStore(store, (s) => s.selected);
  const diff = useStore(store, (s) => s.diff);
  const scroll = useStore(store, (s) => s.scroll);
  const pageSize = useStore(store, (s) => s.pageSize);
  const { stdout } = useStdout();
  const rows = stdout.rows ?? 24;
  useEffect(() => store.getState().setPageSize(rows - 4), [store, rows]);

  const change = changes[selected]!;
  const visible = diff.slice(scroll, scroll + pageSize);
  const below = diff.length - scroll - visible.length;
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>{change.shown}</Text>
        <Text dimColor>
          {' '}
          ({selected + 1}/{changes.length}) · {change.kind} · {change.lastSeen} · session’s copy vs now
        </Text>
      </Text>
      <Text dimColor>{scroll > 0 ? `▲ ${scroll} more` : ' '}</Text>
      {visible.map((line, i) => (
        <Text key={scroll + i} color={lineColor(line)} wrap="truncate-end">
          {line || ' '}
        </Text>
      ))}
      <Text dimColor>{below > 0 ? `▼ ${below} more` : ' '}</Text>
      <Text dimColor>{hints(diffBindings)}</Text>
    </Box>
  );
}
