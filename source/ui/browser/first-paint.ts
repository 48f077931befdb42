import chalk from 'chalk';
import { terminalText } from '../../printable-text.js';
import cliTruncate from 'cli-truncate';
import { unloadedRows, type BrowserState } from '../../state/browser-store.js';
import { detailsLines, footerLine, headerLines, showsDetails, tableLines, topLines, type Line, type Segment } from './browser-lines.js';

/** NO_COLOR: colours go, styles stay — as Ink's colorize has it in the bundle (scripts/build.mjs). */
const noColor = 'NO_COLOR' in process.env;

/** Styles a segment as Ink's <Text> does (the same chalk, in the same order). */
function styled(segment: Segment): string {
  let text = terminalText(segment.text);
  if (segment.dim) text = chalk.dim(text);
  if (segment.color && !noColor) text = (chalk as unknown as Record<string, (s: string) => string>)[segment.color]!(text);
  if (segment.bold) text = chalk.bold(text);
  if (segment.underline) text = chalk.underline(text);
  if (segment.inverse) text = chalk.inverse(text);
  return text;
}

/**
 * The browser's first frame as text, painted before React and Ink have loaded (they take
 * ~150 ms more); Ink then draws the same frame over it. It is the layout of BrowserApp — table
 * above, details and keys at the bottom — from the same lines, so the two frames are cell for cell
 * the same (test/ui/first-paint.test.tsx). Null when the layout does not fit the screen or an
 * overlay is open: Ink alone draws those.
 */
export function paintFirstFrame(state: BrowserState, size: { columns: number; rows: number }, now: number): string | null {
  if (state.overlay) return null;
  const unloaded = unloadedRows(state);
  const shown = state.visible.length + unloaded;
  const between = topLines(state, size.columns, state.pageSize);
  const top: Line[] = [
    ...headerLines({ home: state.home, rows: state.set.rows, whole: state.whole, filter: state.filter, scope: state.scope, shown }),
    ...between,
    ...tableLines({ ...state, unloaded, taken: between.length - 1 }, size.columns, now),
  ];
  const details: Line[] = showsDetails(size.rows) ? [[{ text: '─'.repeat(size.columns), dim: true }], ...detailsLines(state.details)] : [];
  const bottom: Line[] = [...details, footerLine()];
  const gap = size.rows - top.length - bottom.length;
  if (gap < 0) return null;
  const lines = [...top, ...Array.from({ length: gap }, (): Line => []), ...bottom];
  return lines.map((line) => cliTruncate(line.map(styled).join(''), size.columns, { position: 'end' })).join('\n');
}
