import { Box, Text } from 'ink';
import { useStore } from 'zustand';
import type { ChangesStore, ChangeView } from '../../state/changes-store.js';
import { formatBytes } from '../../human-units.js';
import { changesBindings, hints } from '../keys/bindings.js';

const kindColor: Record<ChangeView['kind'], string> = { modified: 'yellow', deleted: 'red', created: 'green' };

/** The prompt: every changed file with what happened to it, and the three choices. */
export function ChangedFileList({ store }: { store: ChangesStore }) {
  const changes = useStore(store, (s) => s.changes);
  const selected = useStore(store, (s) => s.selected);
  const sessionId = useStore(store, (s) => s.sessionId);
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold color="yellow">⚠ {changes.length} file{changes.length === 1 ? '' : 's'} changed</Text> since session <Text color="magenta">{sessionId}</Text> stopped
      </Text>
      <Box flexDirection="column" marginY={1}>
        {changes.map((change, i) => (
          <Box key={change.path} gap={1}>
            <Text color="cyan">{i === selected ? '❯' : ' '}</Text>
            <Text color={kindColor[change.kind]}>{change.kind.padEnd(8)}</Text>
            <Text bold={i === selected}>{change.shown}</Text>
            <Text dimColor>
              {change.kind === 'deleted' ? 'gone' : formatBytes(change.size)}
              {change.changedAgo ? ` · changed ${change.changedAgo}` : ''} · {change.lastSeen}
            </Text>
          </Box>
        ))}
      </Box>
      <Text>
        <Text bold color="green">[C]</Text>ontinue  <Text bold color="red">[A]</Text>bort  <Text bold color="cyan">[V]</Text>iew diff
        <Text dimColor>   {hints(changesBindings)}</Text>
      </Text>
    </Box>
  );
}
