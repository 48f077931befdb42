import { Box, Text } from 'ink';
import { useStore } from 'zustand';
import type { BrowserStore } from '../../state/browser-store.js';
import { browserBindings, screenBindings } from '../keys/bindings.js';

function describeKeys(keys: readonly string[]): string {
  return keys.map((k) => (k === 'return' ? 'Enter' : k === 'escape' ? 'Esc' : k === 'pageup' ? 'PgUp' : k === 'pagedown' ? 'PgDn' : k === 'tab' ? 'Tab' : k === 'shift+tab' ? 'Shift+Tab' : k.replace(/^ctrl\+(.)$/, (_, c: string) => `Ctrl+${c.toUpperCase()}`).replace(/^up$/, '↑').replace(/^down$/, '↓'))).join(' ');
}

/** Help, confirmations and the resume plan, drawn over the table. */
export function BrowserOverlay({ store }: { store: BrowserStore }) {
  const overlay = useStore(store, (s) => s.overlay);
  if (!overlay) return null;
  if (overlay.kind === 'help') {
    return (
      <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
        <Text bold>Keys</Text>
        {[...Object.values(browserBindings), ...Object.values(screenBindings)].map((b) => (
          <Text key={b.description}>
            <Text color="cyan">{describeKeys(b.keys).padEnd(16)}</Text> {b.description}
          </Text>
        ))}
        <Text dimColor>? or Esc closes this help</Text>
      </Box>
    );
  }
  if (overlay.kind === 'confirm') {
    return (
      <Box borderStyle="round" borderColor="yellow" paddingX={1}>
        <Text>
          {overlay.action === 'delete' ? 'Delete' : 'Unlock'} session <Text color="magenta">{overlay.id}</Text>
          {overlay.action === 'delete' ? ' and its event log' : ''}? <Text bold>[y/N]</Text>
        </Text>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="green" paddingX={1}>
      <Text bold>
        Resume session <Text color="magenta">{overlay.id}</Text>?
      </Text>
      {overlay.lines.map((line) => (
        <Text key={line} wrap="truncate-end">
          {line}
        </Text>
      ))}
      <Text dimColor>Enter start · Esc back</Text>
    </Box>
  );
}
