import { formatAgo, formatCount } from '../../human-units.js';
import { countByStatus, statusLabel, type BrowserRow, type BrowserScope } from '../../state/browser-rows.js';
import type { SessionDetails, WholeList } from '../../state/browser-store.js';
import { nameInLane, stepStateStyle, type SessionStep } from '../../state/session-steps.js';
import { browserBindings, hints } from '../keys/bindings.js';
import { labelHue } from '../../session/status-words.js';
import { sessionTitle } from '../../session/session-name.js';

/**
 * The browser's screen as styled lines: what the Ink components render, and what the first frame
 * paints before Ink has loaded (first-paint.ts). One definition, so the two can never differ.
 */
export interface Segment {
  text: string;
  color?: string;
  dim?: boolean;
  bold?: boolean;
  inverse?: boolean;
}
export type Line = Segment[];

/** Header, search line, table head and markers, border, details and footer: the lines that are not table rows. */
export const chrome = 12;

/** A step as its glyph, in its state's colour. */
const glyph = (step: SessionStep): Segment => ({ text: stepStateStyle[step.status].glyph, color: stepStateStyle[step.status].color });

function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text.padEnd(width);
}

const dim = (text: string): Segment => ({ text, dim: true });

export interface HeaderView {
  home: string;
  rows: readonly BrowserRow[];
  whole: WholeList | null;
  filter: string;
  scope: BrowserScope;
  shown: number;
}

/** acode, ACODE_HOME, sessions per status; then the filter, the scope and how many rows they show. */
export function headerLines(view: HeaderView): [Line, Line] {
  const counts = view.whole?.counts ?? countByStatus(view.rows);
  const figures = Object.entries(counts).map(([status, n]) => ` · ${n} ${status}`).join('');
  return [
    [{ text: 'acode', bold: true, color: 'cyan' }, { text: ' ' }, dim(view.home), { text: ` · ${view.whole?.sessions ?? view.rows.length} sessions${figures}` }],
    [dim('filter '), { text: view.filter, color: 'yellow' }, dim(' · scope '), { text: view.scope === 'here' ? 'this directory' : 'all directories', color: 'yellow' }, dim(` · ${view.shown} shown`)],
  ];
}

/** The query while searching (or kept), else the last message. */
export function searchLine(view: { query: string; searching: boolean; message: string | null }): Line {
  if (!view.searching && !view.query) return [{ text: view.message ?? ' ', color: 'yellow' }];
  return [{ text: '/', color: 'cyan' }, { text: view.query }, view.searching ? { text: ' ', inverse: true } : dim('  (/ to edit, Esc clears)')];
}

export interface TableView {
  visible: readonly BrowserRow[];
  top: number;
  pageSize: number;
  selected: number;
  unloaded: number;
}

/** The windowed table: its head, the rows that fit, and ▲/▼ counts for the rest. */
export function tableLines(view: TableView, width: number, now: number): Line[] {
  const workflowWidth = 22;
  const cwdWidth = Math.max(10, width - (2 + 9 + workflowWidth + 12 + 9 + 7 + 9 + 8));
  const rows = view.visible.slice(view.top, view.top + view.pageSize);
  const below = view.visible.length + view.unloaded - view.top - view.pageSize;
  const lines: Line[] = [
    [dim(`  ${fit('ID', 9)}${fit('WORKFLOW', workflowWidth)} ${fit('STATUS', 12)}${fit('STEPS', 9)}${fit('TOKENS', 7)} ${fit('UPDATED', 9)} DIRECTORY`)],
    [dim(view.top > 0 ? `  ▲ ${view.top} more` : ' ')],
  ];
  if (rows.length === 0) lines.push([dim('  no sessions match')]);
  rows.forEach((row, i) => {
    const selected = view.top + i === view.selected;
    const status = statusLabel(row);
    const before = `${selected ? '❯ ' : '  '}${fit(row.session_id.slice(0, 8), 9)}${fit(sessionTitle(row), workflowWidth)} `;
    const after = `${fit(`${row.steps_done}/${row.steps_total}`, 9)}${fit(formatCount(row.tokens.input + row.tokens.output), 7)} ${fit(formatAgo(Date.parse(row.updated_at), now), 9)} ${fit(row.cwd, cwdWidth)}`;
    // The selected row is drawn inverse, its status uncoloured.
    lines.push(selected ? [{ text: before, inverse: true }, { text: fit(status, 12), inverse: true }, { text: after, inverse: true }] : [{ text: before }, { text: fit(status, 12), color: labelHue(status) }, { text: after }]);
  });
  lines.push([dim(below > 0 ? `  ▼ ${below} more` : ' ')]);
  return lines;
}

/** Steps listed in the details pane; the rest are counted. */
const stepsListed = 24;

/**
 * The steps on one line: "✓ researcher  ○ writer" in a chain (by agent), "✓ overview  ● technical"
 * in a workflow (by task), "web ✓◆○  docs ✓  reduce ○" in a parallel run (a glyph per step, by branch).
 */
function stepsLine(details: SessionDetails): Line {
  const shown = details.steps.slice(0, stepsListed);
  const line: Line = [];
  if (details.pattern === 'parallel') {
    for (const [i, step] of shown.entries()) {
      if (step.group === null) line.push(dim(`${i ? '  ' : ''}${step.title} `));
      else if (shown[i - 1]?.group !== step.group) line.push(dim(`${i ? '  ' : ''}${step.group} `));
      line.push(glyph(step));
    }
    if (line.length) line.push({ text: '  ' });
  } else {
    for (const step of shown) line.push({ ...glyph(step), text: `${glyph(step).text} ${details.pattern === 'chain' ? step.agent : nameInLane(step)}  ` });
  }
  if (details.steps.length > shown.length) line.push(dim(`… ${details.steps.length - shown.length} more`));
  return line;
}

/** The selected session: its steps, last response, why it stopped and who holds its lock. */
export function detailsLines(details: SessionDetails | null): Line[] {
  if (!details) return [[dim('no session selected')]];
  if (details.damaged) return [[{ text: `damaged: ${details.damaged}`, color: 'red' }]];
  const steps = stepsLine(details);
  const stopped = details.stopReason ? `${details.stopReason}${details.error ? `: ${details.error}` : ''}` : '—';
  return [
    steps.length ? steps : [dim('no steps')],
    [dim('last response '), { text: details.lastResponse.replace(/\s+/g, ' ') || '—' }],
    [dim('stopped '), { text: stopped }, dim('   lock '), { text: details.lock ?? 'none' }],
  ];
}

/** The keys, generated from the bindings. */
export function footerLine(): Line {
  return [dim(hints(browserBindings))];
}
