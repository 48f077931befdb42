import { formatAgo, formatCount, plural } from '../../human-units.js';
import { isNumbered, patternWords } from '../../engine/patterns/pattern-for.js';
import { countByStatus, matchedChars, statusLabel, type BrowserRow, type BrowserScope, type MatchedChars } from '../../state/browser-rows.js';
import type { SessionDetails, TeamRows, WholeList } from '../../state/browser-store.js';
import { stepStateStyle, type SessionStep } from '../../state/session-steps.js';
import { stepName } from '../../engine/step-names.js';
import { browserBindings, hints } from '../keys/bindings.js';
import { labelHue } from '../../session/status-words.js';
import { sessionTitle } from '../../session/session-name.js';
import { searchMatch } from '../theme.js';
import { columnsFor, markerWidth, workflowWidth, type ColumnKey } from './table-columns.js';
import { wrapText } from './wrap-text.js';
import { printable } from '../../printable-text.js';
import stringWidth from '../text-width.js';

/**
 * The browser's screen as styled lines: what the Ink components render, and what the first frame
 * paints before Ink has loaded (first-paint.ts). One definition, so the two can never differ.
 */
export interface Segment {
  text: string;
  color?: string;
  dim?: boolean;
  bold?: boolean;
  underline?: boolean;
  inverse?: boolean;
}
export type Line = Segment[];

/** Header, search line, table head and markers, border, details and footer: the lines that are not table rows. */
export const chrome = 12;

/** The details pane's rows: its border and its three lines. */
const detailsRows = 4;

/** The fewest table rows shown: below them, a short terminal goes without the details pane. */
const fewestTableRows = 3;

/**
 * Whether a terminal `rows` tall shows the details pane: only with room for the table's fewest rows
 * beside it. Without it a frame of 10 rows still fits (taller than the terminal, Ink scrolled it:
 * the header went off, the selected row with it).
 */
export function showsDetails(rows: number): boolean {
  return rows >= chrome + fewestTableRows;
}

/** The fewest rows the browser is drawn in: its lines without the details pane, and one table row. */
export const fewestRows = chrome - detailsRows;

/** Table rows a terminal `rows` tall has room for, at least one. */
export function tableRowsFor(rows: number): number {
  return Math.max(1, rows - chrome + (showsDetails(rows) ? 0 : detailsRows));
}

/** A step as its glyph, in its state's colour. */
const glyph = (step: SessionStep): Segment => ({ text: stepStateStyle[step.status].glyph, color: stepStateStyle[step.status].color });

const graphemes = new Intl.Segmenter();

/** A cell's text fitted to its column: its graphemes, each with where it starts in the text and the columns it takes. */
interface Fitted {
  pieces: { text: string; at: number; columns: number }[];
  /** Spaces after the pieces (the cell's padding, and the column a wide character left). */
  pad: number;
  cut: boolean;
}

/**
 * `text` cut with "…" or padded to `width` columns as the terminal draws it: by display width,
 * a grapheme never split (a flag, an emoji family, a letter with its accents) — cut by UTF-16
 * length, 名 took two columns and never was cut, 🚀 was halved into U+FFFD. Controls go first
 * (a tab spread the row out; an escape sequence cut in half left its tail), tabs become spaces.
 */
function fitCell(raw: string, width: number): Fitted {
  const text = raw.replace(/\t/g, ' ');
  if (/^[\x20-\x7e]*$/.test(text)) {
    const cut = text.length > width;
    const shown = cut ? text.slice(0, Math.max(0, width - 1)) : text;
    return { pieces: [...shown].map((char, at) => ({ text: char, at, columns: 1 })), pad: width - shown.length - (cut ? 1 : 0), cut };
  }
  const clean = printable(text);
  const all = [...graphemes.segment(clean)].map(({ segment, index }) => ({ text: segment, at: index, columns: stringWidth(segment) }));
  const total = all.reduce((sum, piece) => sum + piece.columns, 0);
  if (total <= width) return { pieces: all, pad: width - total, cut: false };
  const pieces: Fitted['pieces'] = [];
  let used = 0;
  for (const piece of all) {
    if (used + piece.columns > width - 1) break;
    pieces.push(piece);
    used += piece.columns;
  }
  return { pieces, pad: Math.max(0, width - 1 - used), cut: true };
}

function fit(text: string, width: number): string {
  const fitted = fitCell(text, width);
  return `${fitted.pieces.map((piece) => piece.text).join('')}${fitted.cut && width > 0 ? '…' : ''}${' '.repeat(fitted.pad)}`;
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

const scopeWords: Record<BrowserScope, string> = { here: 'this directory', all: 'all directories', team: 'team store' };

/** acode, ACODE_HOME, sessions per status; then the filter, the scope and how many rows they show. */
export function headerLines(view: HeaderView): [Line, Line] {
  const counts = view.whole?.counts ?? countByStatus(view.rows);
  const figures = Object.entries(counts).map(([status, n]) => ` · ${n} ${status}`).join('');
  return [
    [{ text: 'acode', bold: true, color: 'cyan' }, { text: ' ' }, dim(view.home), { text: ` · ${plural(view.whole?.sessions ?? view.rows.length, 'session')}${figures}` }],
    [
      dim('filter '),
      { text: view.filter, color: 'yellow' },
      dim(' · scope '),
      { text: scopeWords[view.scope], color: 'yellow' },
      dim(` · ${view.shown} shown`),
      ...(view.scope === 'team' ? [dim(" · other machines' sessions are read-only: Enter resumes one here")] : []),
    ],
  ];
}

export interface TopView {
  query: string;
  searching: boolean;
  message: string | null;
  /** The home's sync line while degraded (state/sync-line.ts). */
  sync?: string | null;
  scope?: BrowserScope;
  /** The team scope's read: while it reads, or why the store cannot be read. */
  team?: Pick<TeamRows, 'state' | 'problem'>;
}

/** The team scope's state line: reading the store, or the store unreachable (the local scopes work on); null otherwise. */
function teamLine(view: TopView): Line | null {
  if (view.scope !== 'team' || !view.team) return null;
  if (view.team.state === 'loading') return [dim('reading the team store…')];
  if (view.team.state === 'unreachable') return [{ text: `team store: ${view.team.problem ?? 'unreachable'} — the local scopes (s) work as ever; Ctrl+R tries again`, color: 'red' }];
  return null;
}

/**
 * The lines between the header and the table: the query while searching (or kept), then the last
 * message wrapped to the width (never cut; the table gives up rows for it, keeping one), else a
 * blank line.
 */
export function topLines(view: TopView, width: number, pageSize: number): Line[] {
  const lines: Line[] = [];
  if (view.searching || view.query) lines.push([{ text: '/', color: 'cyan' }, { text: view.query }, view.searching ? { text: ' ', inverse: true } : dim('  (/ to edit, Esc clears)')]);
  if (view.sync) lines.push([{ text: view.sync, color: 'red' }]);
  const team = teamLine(view);
  if (team) lines.push(...wrapText(team.map((segment) => segment.text).join(''), width, 3).map((text): Line => [{ ...team[0]!, text }]));
  if (view.message) lines.push(...wrapText(view.message, width, Math.max(1, pageSize - lines.length)).map((text): Line => [{ text, color: 'yellow' }]));
  return lines.length ? lines : [[{ text: ' ' }]];
}

export interface TableView {
  visible: readonly BrowserRow[];
  top: number;
  pageSize: number;
  selected: number;
  unloaded: number;
  query: string;
  /** Lines the top lines take beyond their one: as many fewer rows are shown. */
  taken: number;
}

type Cell = { text: string; matched?: ReadonlySet<number>; color?: string };

/** A cell cut or padded to its column, with the characters a search matched highlighted. */
function cellSegments(cell: Cell, width: number, gap: number, selected: boolean): Segment[] {
  const fitted = fitCell(cell.text, width);
  const base: Segment = selected ? { text: '', inverse: true } : { text: '', color: cell.color };
  // A search's matches are places in the text as stored: they mark the cell only where it shows that text unchanged.
  const matched = printable(cell.text) === cell.text ? cell.matched : undefined;
  const segments: Segment[] = [];
  let run = '';
  let runMatched = false;
  const flush = () => {
    if (run) segments.push(runMatched ? { ...base, ...searchMatch, text: run } : { ...base, text: run });
    run = '';
  };
  for (const piece of fitted.pieces) {
    let hit = false;
    for (let i = piece.at; i < piece.at + piece.text.length && !hit; i++) hit = Boolean(matched?.has(i));
    if (hit !== runMatched) flush();
    runMatched = hit;
    run += piece.text;
  }
  flush();
  run = `${fitted.cut && width > 0 ? '…' : ''}${' '.repeat(fitted.pad)}`;
  runMatched = false;
  flush();
  if (gap) segments.push({ ...base, color: undefined, text: ' '.repeat(gap) });
  return segments;
}

/** A session's variables as the search reads them: `topic=AI agents lang=en`. */
const variablesText = (row: BrowserRow) => Object.entries(row.variables).map(([k, v]) => `${k}=${String(v)}`).join(' ');

/** How a row is told apart from others of its title on screen: by its variables, or by its first step's input. */
type TellApart = 'variables' | 'input' | null;

/** The first step's input as a row quotes it: `“Research AI agents…”` (the cell takes terminal controls out). */
const inputText = (row: BrowserRow) => (row.first_input ? `“${row.first_input}”` : '');

/** What the workflow cell adds after the title to tell the row apart (`topic=AI agents`, `“Research…”`), if anything. */
function apartText(row: BrowserRow, by: TellApart): string {
  return by === 'variables' ? variablesText(row) : by === 'input' ? inputText(row) : '';
}

/**
 * One row's cells, by column. `tellApart`: another row on screen has the same title, so the
 * workflow cell adds the session's variables (`research · topic=AI agents`) — or, when the
 * variables do not tell them apart (none, or the same), the start of its first step's input
 * (`research · “Research AI agents…”`); a team-store row's last column is the host it last ran on.
 */
function rowCells(row: BrowserRow, query: string, now: number, tellApart: TellApart = null): Record<ColumnKey, Cell> {
  const matched = matchedChars(row, query);
  const status = statusLabel(row);
  const title = sessionTitle(row);
  const extra = apartText(row, tellApart);
  const titleMatched = titleMatches(row, matched);
  const varsMatched = tellApart === 'variables' && extra && matched?.variables ? [...matched.variables].map((i) => i + title.length + ' · '.length) : [];
  return {
    id: { text: row.session_id.slice(0, 8), matched: matched?.id },
    workflow: { text: extra ? `${title} · ${extra}` : title, matched: varsMatched.length ? new Set([...(titleMatched ?? []), ...varsMatched]) : titleMatched },
    status: { text: status, color: labelHue(status) },
    steps: { text: `${row.steps_done}/${row.steps_total}` },
    tokens: { text: formatCount(row.tokens.input + row.tokens.output) },
    updated: { text: formatAgo(Date.parse(row.updated_at), now) },
    directory: row.team ? { text: row.team.host } : { text: row.cwd, matched: matched?.directory },
  };
}

/** The matched characters of the workflow cell, which shows `name · workflow` when the session has a name. */
function titleMatches(row: BrowserRow, matched: MatchedChars | null): ReadonlySet<number> | undefined {
  if (!matched || row.name === undefined) return matched?.workflow;
  const offset = row.name.length + ' · '.length;
  const chars = [...(matched.name ?? []), ...[...(matched.workflow ?? [])].map((i) => i + offset)];
  return chars.length ? new Set(chars) : undefined;
}

/** Adjacent segments of the same style as one (fewer, longer runs of text). */
function merged(line: Line): Line {
  const out: Line = [];
  for (const segment of line) {
    const last = out.at(-1);
    if (last && last.color === segment.color && last.dim === segment.dim && last.bold === segment.bold && last.inverse === segment.inverse && last.underline === segment.underline) last.text += segment.text;
    else out.push({ ...segment });
  }
  return out;
}

/**
 * The windowed table: its head, the rows that fit, and ▲/▼ counts for the rest. Columns drop at
 * narrow widths in a fixed order (table-columns.ts); a search's matched characters are highlighted.
 */
export function tableLines(view: TableView, width: number, now: number): Line[] {
  const shown = Math.max(1, view.pageSize - view.taken);
  // The rows given to a message: the window still holds the selection.
  const top = Math.max(0, Math.min(view.top, view.selected), view.selected - shown + 1);
  const rows = view.visible.slice(top, top + shown);
  const below = view.visible.length + view.unloaded - top - shown;
  // Titles shared by rows on screen: those rows are told apart by their variables where these differ,
  // else by their first step's input (the column widens for them).
  const titles = new Map<string, { rows: number; variables: Set<string> }>();
  for (const row of rows) {
    const seen = titles.get(sessionTitle(row)) ?? { rows: 0, variables: new Set<string>() };
    seen.rows++;
    seen.variables.add(variablesText(row));
    titles.set(sessionTitle(row), seen);
  }
  // Only where the table has room to spare (its directory column shows): a narrow one keeps its cells uncut.
  const roomy = columnsFor(width).some((column) => column.key === 'directory');
  const tellApart = (row: BrowserRow): TellApart => {
    const shared = titles.get(sessionTitle(row))!;
    if (!roomy || shared.rows < 2) return null;
    const vars = Object.keys(row.variables).length > 0;
    if (vars && shared.variables.size > 1) return 'variables';
    if (row.first_input) return 'input';
    return vars ? 'variables' : null;
  };
  const wants = Math.max(0, ...rows.map((row) => apartText(row, tellApart(row))).map((extra, i) => (extra ? stringWidth(`${sessionTitle(rows[i]!)} · ${extra}`) + 1 - workflowWidth : 0)));
  const columns = columnsFor(width, wants);
  const team = rows.some((row) => row.team);
  const head = ' '.repeat(markerWidth) + columns.map((c) => fit(team && c.key === 'directory' ? 'HOST' : c.title, c.width) + ' '.repeat(c.gap)).join('');
  const lines: Line[] = [[dim(head.trimEnd())], [dim(top > 0 ? `  ▲ ${top} more` : ' ')]];
  if (rows.length === 0) lines.push([dim('  no sessions match')]);
  rows.forEach((row, i) => {
    const selected = top + i === view.selected;
    const cells = rowCells(row, view.query, now, tellApart(row));
    // The selected row is drawn inverse, its status uncoloured.
    const line: Line = [selected ? { text: '❯ ', inverse: true } : { text: '  ' }];
    for (const column of columns) line.push(...cellSegments(cells[column.key], column.width, column.gap, selected));
    lines.push(merged(line));
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
/** Decisions the details pane names: the latest, on one line. */
const decisionsListed = 3;

function stepsLine(details: SessionDetails): Line {
  const shown = details.steps.slice(0, stepsListed);
  const line: Line = [];
  if (patternWords(details.pattern).glyphsByLane) {
    for (const [i, step] of shown.entries()) {
      if (step.group === null) line.push(dim(`${i ? '  ' : ''}${step.title} `));
      else if (shown[i - 1]?.group !== step.group) line.push(dim(`${i ? '  ' : ''}${step.group} `));
      line.push(glyph(step));
    }
    if (line.length) line.push({ text: '  ' });
  } else {
    for (const step of shown) line.push({ ...glyph(step), text: `${glyph(step).text} ${isNumbered(details.pattern) ? step.agent : stepName(details.pattern, step.id)}  ` });
  }
  if (details.steps.length > shown.length) line.push(dim(`… ${details.steps.length - shown.length} more`));
  return line;
}

/** The selected session: its steps, last response, why it stopped and who holds its lock. */
export function detailsLines(details: SessionDetails | null): Line[] {
  if (!details) return [[dim('no session selected')]];
  if (details.damaged) return [[{ text: `damaged: ${details.damaged}`, color: 'red' }]];
  if (details.team && !details.team.here) {
    return [
      [dim('team store '), { text: `${details.team.status} · last ran on host ${details.team.host} · ${details.team.events} events in the store` }],
      [{ text: 'read-only here: Enter resumes it here (pulls it into this home, as acode resume does); d, u and f act on it only then', color: 'yellow' }],
    ];
  }
  const steps = stepsLine(details);
  const stopped = details.stopReason ? `${details.stopReason}${details.error ? `: ${details.error}` : ''}` : '—';
  // What the pattern decided from the answers (routes, scores, plans, the graph's path; an agent CLI's conversation): the latest few.
  const decided = details.steps.filter((step) => step.detail).slice(-decisionsListed);
  return [
    steps.length ? steps : [dim('no steps')],
    ...(decided.length ? [[dim('decided '), { text: decided.map((step) => `${step.title}: ${step.detail!}`).join(' · ') }]] : []),
    [dim('last response '), { text: details.lastResponse.replace(/\s+/g, ' ') || '—' }],
    [dim('stopped '), { text: stopped }, dim('   lock '), { text: details.lock ?? 'none' }],
  ];
}

/** The keys, generated from the bindings. */
export function footerLine(): Line {
  return [dim(hints(browserBindings))];
}
