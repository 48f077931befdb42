import { Box, Text } from 'ink';
import { useStore } from 'zustand';
import type { BrowserStore } from '../../state/browser-store.js';
import { browserBindings, screenBindings } from '../keys/bindings.js';
import { wrapText } from './wrap-text.js';

function describeKeys(keys: readonly string[]): string {
  return keys.map((k) => (k === 'return' ? 'Enter' : k === 'escape' ? 'Esc' : k === 'pageup' ? 'PgUp' : k === 'pagedown' ? 'PgDn' : k === 'tab' ? 'Tab' : k === 'shift+tab' ? 'Shift+Tab' : k.replace(/^ctrl\+(.)$/, (_, c: string) => `Ctrl+${c.toUpperCase()}`).replace(/^up$/, '↑').replace(/^down$/, '↓').replace(/^right$/, '→').replace(/^left$/, '←'))).join(' ');
}

/** Columns of the help's key column, and what its border and padding take of a line and of the rows. */
const keyColumn = 16;
const helpFrameColumns = 4;
const helpFrameRows = 2;

/**
 * The help's lines for a box `columns` wide with `rows` lines inside it: each key and what it does,
 * wrapped beside the key column, then how to close it; past the rows, a last line saying how many
 * keys a taller terminal would show. Laid out here, line by line: left to Ink, a help taller than
 * the terminal was squeezed into it, lines drawn over one another and the header lost.
 */
export function helpLines(columns: number, rows: number): { key: string; text: string; dim?: boolean }[] {
  const width = Math.max(1, columns - helpFrameColumns - keyColumn - 1);
  const entries = [...Object.values(browserBindings), ...Object.values(screenBindings)].map((b) =>
    wrapText(b.description, width).map((text, i) => ({ key: i === 0 ? describeKeys(b.keys) : '', text })),
  );
  const lines: { key: string; text: string; dim?: boolean }[] = [{ key: '', text: 'Keys' }];
  const closing = { key: '', text: '? or Esc closes this help', dim: true };
  // Rows for the keys: all but the title and the closing line — and the line saying what is left out, when something is.
  const all = entries.reduce((sum, entry) => sum + entry.length, 0);
  const room = all <= rows - 2 ? rows - 2 : rows - 3;
  for (const [i, entry] of entries.entries()) {
    if (lines.length - 1 + entry.length > room) {
      const left = entries.length - i;
      lines.push({ key: '', text: `… ${left} more key${left === 1 ? '' : 's'}: a taller terminal shows them`, dim: true });
      break;
    }
    lines.push(...entry);
  }
  // A line of its own (the title, what is left out, the closing one) is cut to the box, never wrapped.
  const cut = (line: { key: string; text: string; dim?: boolean }) => (line.key || entries.some((entry) => entry.includes(line)) ? line : { ...line, text: wrapText(line.text, columns - helpFrameColumns, 1)[0]! });
  return [...lines, closing].slice(-Math.max(1, rows)).map(cut);
}

/** Help, confirmations and the resume plan, drawn over the table; `room`: the rows it may take. */
export function BrowserOverlay({ store, columns, room }: { store: BrowserStore; columns: number; room: number }) {
  const overlay = useStore(store, (s) => s.overlay);
  if (!overlay) return null;
  if (overlay.kind === 'help') {
    // No room for a box: how to close it, alone.
    if (room - helpFrameRows < 1) return <Text dimColor>{wrapText('? or Esc closes this help', columns, 1)[0]}</Text>;
    const lines = helpLines(columns, room - helpFrameRows);
    return (
      <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor="cyan" paddingX={1}>
        {lines.map((line, i) =>
          i === 0 ? (
            <Text key={i} bold>
              {line.text}
            </Text>
          ) : (
            <Text key={i} wrap="truncate-end" dimColor={line.dim}>
              {line.key || !line.dim ? <Text color="cyan">{line.key.padEnd(keyColumn)} </Text> : null}
              {line.text}
            </Text>
          ),
        )}
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
        {overlay.action === 'fork' ? 'Fork' : 'Resume'} session <Text color="magenta">{overlay.id}</Text>
        {overlay.action === 'fork' ? ` from step ${overlay.step}` : overlay.action === 'pull' ? ' here' : ''}?
      </Text>
      {overlay.lines.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line}
        </Text>
      ))}
      <Text dimColor>Enter start · Esc back</Text>
    </Box>
  );
}
