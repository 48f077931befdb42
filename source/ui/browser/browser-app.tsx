import { Box, Text, useApp, useInput } from 'ink';
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { unloadedRows, type BrowserStore } from '../../state/browser-store.js';
import { handleTyped } from './browser-keys.js';
import { fewestRows, footerLine, headerLines, showsDetails, tableRowsFor, topLines } from './browser-lines.js';
import { BrowserOverlay } from './browser-overlays.js';
import { DetailsPane } from './details-pane.js';
import { LineText, Lines } from './line-text.js';
import { SessionTable } from './session-table.js';
import { StepView } from './step-view.js';
import { useClock } from './use-clock.js';
import { useTerminalSize } from './use-terminal-size.js';

function Header({ store }: { store: BrowserStore }) {
  const home = useStore(store, (s) => s.home);
  const rows = useStore(store, (s) => s.set.rows);
  const whole = useStore(store, (s) => s.whole);
  const filter = useStore(store, (s) => s.filter);
  const scope = useStore(store, (s) => s.scope);
  const shown = useStore(store, (s) => s.visible.length + unloadedRows(s));
  return <Lines lines={headerLines({ home, rows, whole, filter, scope, shown })} />;
}

/** The search line and the last message, between the header and the table. */
function TopLines({ store, width }: { store: BrowserStore; width: number }) {
  const query = useStore(store, (s) => s.query);
  const searching = useStore(store, (s) => s.searching);
  const message = useStore(store, (s) => s.message);
  const sync = useStore(store, (s) => s.sync);
  const pageSize = useStore(store, (s) => s.pageSize);
  const scope = useStore(store, (s) => s.scope);
  const team = useStore(store, (s) => s.team);
  return <Lines lines={topLines({ query, searching, message, sync, scope, team }, width, pageSize)} />;
}

/** The latest update among the first rows listed (those a person sees), in ms; 0 when none. */
function newestOf(rows: readonly { updated_at: string }[]): number {
  let newest = 0;
  for (const row of rows.slice(0, 200)) newest = Math.max(newest, Date.parse(row.updated_at) || 0);
  return newest;
}

/** Lines the header (acode …, filter …) and the footer (the keys) take. */
const headerRows = 2;
const footerRows = 1;

/** The full-screen session browser. */
export function BrowserApp({ store, now: fixedNow }: { store: BrowserStore; now?: number }) {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const quit = useStore(store, (s) => s.quit);
  const launch = useStore(store, (s) => s.launch);
  const overlay = useStore(store, (s) => s.overlay);
  // The newest of the rows near the top (where new and running sessions are): whether ages read in seconds.
  const newestUpdate = useStore(store, (s) => newestOf(s.visible));
  const now = useClock(fixedNow, newestUpdate);
  const topCount = useStore(store, (s) => topLines(s, columns, s.pageSize).length);
  useEffect(() => store.getState().setPageSize(tableRowsFor(rows)), [store, rows]);
  useEffect(() => {
    if (quit || launch) exit();
  }, [quit, launch, exit]);

  useInput((input, key) => handleTyped(store, input, key));
  const stepView = useStore(store, (s) => s.stepView);
  const stepsOpen = useStore(stepView, (s) => s.session !== null || s.loading !== null);
  // Over the list, not instead of it: the plan of `r` (an overlay) shows once the step view closes.
  if (stepsOpen && !overlay) return <StepView store={stepView} columns={columns} rows={rows} />;
  // Shorter, its lines were drawn over one another and the selected row went out of sight: it says so instead (keys still act).
  if (rows < fewestRows) return <Text wrap="truncate-end">{`acode: ${rows} rows are too few: make the terminal ${fewestRows} rows tall (q quits)`}</Text>;

  return (
    <Box flexDirection="column" width={columns} height={rows}>
      <Header store={store} />
      <TopLines store={store} width={columns} />
      {overlay ? <BrowserOverlay store={store} columns={columns} room={rows - headerRows - topCount - footerRows} /> : <SessionTable store={store} width={columns} now={now} />}
      <Box flexGrow={1} />
      {/* The help lists every key: it takes the details pane's lines too. */}
      {overlay?.kind === 'help' || !showsDetails(rows) ? null : (
        <Box borderStyle="single" borderTop borderBottom={false} borderLeft={false} borderRight={false} borderDimColor>
          <DetailsPane store={store} width={columns} />
        </Box>
      )}
      <LineText line={footerLine()} />
    </Box>
  );
}
