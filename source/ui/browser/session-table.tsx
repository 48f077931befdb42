import { Box, Text } from 'ink';
import { useStore } from 'zustand';
import { statusLabel } from '../../state/browser-rows.js';
import type { BrowserStore } from '../../state/browser-store.js';
import { formatAgo, formatCount } from '../../human-units.js';

const statusColor: Record<string, string> = { created: 'white', running: 'cyan', 'to approve': 'magenta', paused: 'yellow', completed: 'green', failed: 'red', cancelled: 'gray', interrupted: 'yellow', damaged: 'red' };

function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text.padEnd(width);
}


/** The windowed table: only the rows that fit are rendered, with ▲/▼ counts for the rest. */
export function SessionTable({ store, width, now }: { store: BrowserStore; width: number; now: number }) {
  const visible = useStore(store, (s) => s.visible);
  const top = useStore(store, (s) => s.top);
  const pageSize = useStore(store, (s) => s.pageSize);
  const selected = useStore(store, (s) => s.selected);
  const unloaded = useStore(store, (s) => s.whole?.unloaded ?? 0);
  const rows = visible.slice(top, top + pageSize);
  const below = visible.length + unloaded - top - pageSize;
  const workflowWidth = 22;
  const cwdWidth = Math.max(10, width - (2 + 9 + workflowWidth + 12 + 9 + 7 + 9 + 8));
  return (
    <Box flexDirection="column">
      <Text dimColor>
        {'  '}
        {fit('ID', 9)}
        {fit('WORKFLOW', workflowWidth)} {fit('STATUS', 12)}
        {fit('STEPS', 9)}
        {fit('TOKENS', 7)} {fit('UPDATED', 9)} DIRECTORY
      </Text>
      <Text dimColor>{top > 0 ? `  ▲ ${top} more` : ' '}</Text>
      {rows.length === 0 ? <Text dimColor>  no sessions match</Text> : null}
      {rows.map((row, i) => {
        const isSelected = top + i === selected;
        const status = statusLabel(row);
        return (
          <Text key={row.session_id} inverse={isSelected} wrap="truncate-end">
            {isSelected ? '❯ ' : '  '}
            {fit(row.session_id.slice(0, 8), 9)}
            {fit(row.workflow_name, workflowWidth)} <Text color={isSelected ? undefined : statusColor[status]}>{fit(status, 12)}</Text>
            {fit(`${row.steps_done}/${row.steps_total}`, 9)}
            {fit(formatCount(row.tokens.input + row.tokens.output), 7)} {fit(formatAgo(Date.parse(row.updated_at), now), 9)} {fit(row.cwd, cwdWidth)}
          </Text>
        );
      })}
      <Text dimColor>{below > 0 ? `  ▼ ${below} more` : ' '}</Text>
    </Box>
  );
}
