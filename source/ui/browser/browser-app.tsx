import { Box, Text, useApp, useInput } from 'ink';
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { countByStatus } from '../../state/browser-rows.js';
import type { BrowserStore } from '../../state/browser-store.js';
import { browserBindings as b, confirmBindings, hints, matches } from '../keys/bindings.js';
import { BrowserOverlay } from './browser-overlays.js';
import { DetailsPane } from './details-pane.js';
import { SessionTable } from './session-table.js';
import { useTerminalSize } from './use-terminal-size.js';

/** Header, search line, table, details and footer: the lines that are not table rows. */
const chrome = 12;

function Header({ store }: { store: BrowserStore }) {
  const home = useStore(store, (s) => s.home);
  const rows = useStore(store, (s) => s.set.rows);
  const whole = useStore(store, (s) => s.whole);
  const filter = useStore(store, (s) => s.filter);
  const scope = useStore(store, (s) => s.scope);
  const shown = useStore(store, (s) => s.visible.length + (s.whole?.unloaded ?? 0));
  const counts = whole?.counts ?? countByStatus(rows);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color="cyan">acode</Text> <Text dimColor>{home}</Text> · {whole?.sessions ?? rows.length} sessions
        {Object.entries(counts).map(([status, n]) => ` · ${n} ${status}`).join('')}
      </Text>
      <Text>
        <Text dimColor>filter </Text>
        <Text color="yellow">{filter}</Text>
        <Text dimColor> · scope </Text>
        <Text color="yellow">{scope === 'here' ? 'this directory' : 'all directories'}</Text>
        <Text dimColor> · {shown} shown</Text>
      </Text>
    </Box>
  );
}

function SearchLine({ store }: { store: BrowserStore }) {
  const query = useStore(store, (s) => s.query);
  const searching = useStore(store, (s) => s.searching);
  const message = useStore(store, (s) => s.message);
  if (searching || query) {
    return (
      <Text>
        <Text color="cyan">/</Text>
        {query}
        {searching ? <Text inverse> </Text> : <Text dimColor>  (/ to edit, Esc clears)</Text>}
      </Text>
    );
  }
  return <Text color="yellow">{message ?? ' '}</Text>;
}

/** Keys while typing a search: text edits the query, Enter keeps it, Esc clears it. */
function handleSearchKey(store: BrowserStore, input: string, key: Parameters<Parameters<typeof useInput>[0]>[1]): void {
  const s = store.getState();
  // Typed while the app was busy, the text and its Enter arrive as one chunk.
  const enter = input.search(/[\r\n]/);
  if (enter > 0) {
    s.typeSearch(s.query + input.slice(0, enter));
    s.endSearch(true);
    return;
  }
  if (key.return) s.endSearch(true);
  else if (key.escape) s.endSearch(false);
  else if (key.backspace || key.delete) s.typeSearch(s.query.slice(0, -1));
  else if (key.upArrow) s.move(-1);
  else if (key.downArrow) s.move(1);
  else if (input && !key.ctrl && !key.meta) s.typeSearch(s.query + input);
}

/** The full-screen session browser. */
export function BrowserApp({ store, now = Date.now() }: { store: BrowserStore; now?: number }) {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const quit = useStore(store, (s) => s.quit);
  const resumeId = useStore(store, (s) => s.resumeId);
  const overlay = useStore(store, (s) => s.overlay);
  useEffect(() => store.getState().setPageSize(rows - chrome), [store, rows]);
  useEffect(() => {
    if (quit || resumeId) exit();
  }, [quit, resumeId, exit]);

  useInput((input, key) => {
    const s = store.getState();
    if (key.ctrl && input === 'c') return s.exit();
    if (s.overlay) {
      if (s.overlay.kind === 'help') {
        if (matches(b['browser.help'], input, key) || key.escape || input === 'q') s.closeOverlay();
      } else if (matches(confirmBindings['confirm.yes'], input, key)) s.confirm();
      else if (matches(confirmBindings['confirm.no'], input, key)) s.closeOverlay();
      return;
    }
    if (s.searching) return handleSearchKey(store, input, key);
    if (matches(b['browser.up'], input, key)) s.move(-1);
    else if (matches(b['browser.down'], input, key)) s.move(1);
    else if (matches(b['browser.pageUp'], input, key)) s.page(-1);
    else if (matches(b['browser.pageDown'], input, key)) s.page(1);
    else if (matches(b['browser.first'], input, key)) s.jump('first');
    else if (matches(b['browser.last'], input, key)) s.jump('last');
    else if (matches(b['browser.resume'], input, key)) s.previewResume();
    else if (matches(b['browser.search'], input.slice(0, 1), key)) {
      // Typed fast (or pasted), '/' and the query can arrive as one chunk.
      s.startSearch();
      if (input.length > 1) s.typeSearch(input.slice(1));
    }
    else if (matches(b['browser.filter'], input, key)) s.cycleFilter();
    else if (matches(b['browser.scope'], input, key)) s.toggleScope();
    else if (matches(b['browser.delete'], input, key)) s.ask('delete');
    else if (matches(b['browser.unlock'], input, key)) s.ask('unlock');
    else if (matches(b['browser.refresh'], input, key)) s.refresh();
    else if (matches(b['browser.help'], input, key)) s.toggleHelp();
    else if (matches(b['browser.quit'], input, key)) {
      if (s.query) s.endSearch(false);
      else s.exit();
    }
  });

  return (
    <Box flexDirection="column" width={columns} height={rows}>
      <Header store={store} />
      <SearchLine store={store} />
      {overlay ? <BrowserOverlay store={store} /> : <SessionTable store={store} width={columns} now={now} />}
      <Box flexGrow={1} />
      <Box borderStyle="single" borderTop borderBottom={false} borderLeft={false} borderRight={false} borderDimColor>
        <DetailsPane store={store} width={columns} />
      </Box>
      <Text dimColor wrap="truncate-end">
        {hints(b)}
      </Text>
    </Box>
  );
}
