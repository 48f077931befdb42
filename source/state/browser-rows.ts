import fuzzysort from 'fuzzysort';
import type { SessionSummary } from '../store/session-record.js';
import { isLiveStatus } from '../store/summary-rows.js';
import { labelOrder, rowStates, statusWords } from '../session/status-words.js';
import { redactedMark } from '../secrets/redactor.js';

/** A session as the browser lists it. */
export interface BrowserRow extends SessionSummary {
  /** Running, but its process is gone (dead or stale lock). */
  interrupted: boolean;
  resumable: boolean;
  /** Set on a row of the team scope: as the team store holds it. */
  team?: TeamFacts;
}

/** A team-store row: the host it last ran on, its events in the store, whether this home has it too. */
export interface TeamFacts {
  host: string;
  events: number;
  /** This home holds the session: it acts as any local one. Otherwise it is read-only here until resumed here (pulled). */
  here: boolean;
}

/**
 * Whether a session ran in `cwd`: its folder as stored, where a key of the run in the folder's name
 * was stored as [REDACTED] (secrets/event-redaction.ts) — that part matches what `cwd` has there:
 * 8 or more characters (a piece of a registered key is never shorter) within one folder's name.
 */
export function ranIn(stored: string, cwd: string): boolean {
  if (stored === cwd) return true;
  if (!stored.includes(redactedMark)) return false;
  const pattern = stored.split(redactedMark).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]{8,}');
  return new RegExp(`^${pattern}$`).test(cwd);
}

export const browserFilters = ['all', 'resumable', 'running', 'paused', 'completed', 'failed'] as const;
export type BrowserFilter = (typeof browserFilters)[number];
/** The scopes of this home's own sessions: this directory's, or all of them. */
export type LocalScope = 'here' | 'all';
/** The `s` key's cycle: this directory → all local → the team store's (only with one configured). */
export type BrowserScope = LocalScope | 'team';

/** Everything `/` searches, field by field: id, name, workflow, variables, working directory and last response. */
function searchFields(row: BrowserRow): Record<SearchField, string> {
  const vars = Object.entries(row.variables).map(([k, v]) => `${k}=${String(v)}`).join(' ');
  return { id: row.session_id, name: row.name ?? '', workflow: row.workflow_name, variables: vars, directory: row.cwd, response: row.last_response };
}
type SearchField = 'id' | 'name' | 'workflow' | 'variables' | 'directory' | 'response';
const fieldOrder: readonly SearchField[] = ['id', 'name', 'workflow', 'variables', 'directory', 'response'];

function searchText(row: BrowserRow): string {
  const fields = searchFields(row);
  return fieldOrder.map((field) => fields[field]).join(' ');
}

/** Characters of one field a search matched, by their index in the field. */
export type MatchedChars = Partial<Record<SearchField, ReadonlySet<number>>>;

/**
 * Which characters of each field `query` matched in `row` (what the table highlights), or null
 * when it does not match. Run for the rows on screen only.
 */
export function matchedChars(row: BrowserRow, query: string): MatchedChars | null {
  if (!query.trim()) return null;
  const result = fuzzysort.single(query.trim(), searchText(row));
  if (!result) return null;
  const fields = searchFields(row);
  const matched: MatchedChars = {};
  let start = 0;
  for (const field of fieldOrder) {
    const end = start + fields[field].length;
    const inField = result.indexes.filter((i) => i >= start && i < end).map((i) => i - start);
    if (inField.length) matched[field] = new Set(inField);
    start = end + 1;
  }
  return matched;
}

type Target = { row: BrowserRow; search: Fuzzysort.Prepared; fields: string[] };

/**
 * Rows plus their prepared search targets. Preparing 10,000 targets takes longer than a first
 * frame may, so it happens a slice at a time once the list is on screen (`warm`, between key
 * presses), and whatever is left on the first search; then every keystroke only searches.
 */
export interface RowSet {
  rows: readonly BrowserRow[];
  targets(): readonly Target[];
  /** Prepares up to `count` more targets; true once every row's is ready. */
  warm(count: number): boolean;
}

export function prepareRows(rows: readonly BrowserRow[]): RowSet {
  const targets: Target[] = [];
  const warm = (count: number) => {
    for (const end = Math.min(rows.length, targets.length + count); targets.length < end; ) {
      const row = rows[targets.length]!;
      const fields = searchFields(row);
      targets.push({ row, search: fuzzysort.prepare(searchText(row)), fields: fieldOrder.map((field) => fields[field].toLowerCase()) });
    }
    return targets.length === rows.length;
  };
  return { rows, warm, targets: () => (warm(Infinity), targets) };
}

function passes(row: BrowserRow, filter: BrowserFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'resumable':
      return row.resumable;
    case 'running':
      return isLiveStatus(row.status) && !row.interrupted;
    case 'paused':
      return row.status === 'paused' || row.status === 'awaiting_approval' || row.interrupted;
    case 'completed':
      return row.status === 'completed';
    case 'failed':
      return row.status === 'failed' || row.status === 'cancelled';
  }
}

/** Queries shorter than this match as written only: two letters in order are somewhere in nearly every session. */
export const fuzzyFromLength = 3;

/** How a query's words meet a row's fields: the whole of a field (or an id's start), a word's start, inside a word, or none. */
function matchTier(fields: readonly string[], query: string): 0 | 1 | 2 | undefined {
  if (fields.some((field, i) => field === query || (fieldOrder[i] === 'id' && field.startsWith(query)))) return 0;
  if (fields.some((field) => wordStarts(field, query))) return 1;
  return fields.some((field) => field.includes(query)) ? 2 : undefined;
}

/** Whether `query` starts a word of `text` (after a space, `=`, `/`, `-`, `_`, `.` or at its start). */
function wordStarts(text: string, query: string): boolean {
  for (let at = text.indexOf(query); at !== -1; at = text.indexOf(query, at + 1)) {
    if (at === 0 || /[\s=/_.:,-]/.test(text[at - 1]!)) return true;
  }
  return false;
}

/**
 * The rows to show: in scope (this directory or all), through the filter, then — with a query —
 * matched across every session: a field it equals (or an id it starts) first, then a word it starts,
 * then text it is part of, each newest first; from three characters on, fuzzy matches after those,
 * best first. Without a query, newest first as loaded.
 */
export function visibleRows(set: RowSet, view: { scope: BrowserScope; cwd: string; filter: BrowserFilter; query: string }): BrowserRow[] {
  // The team scope's rows are a set of their own (the store's sessions): all of it is in scope.
  const keep = (row: BrowserRow) => (view.scope !== 'here' || ranIn(row.cwd, view.cwd) || row.damaged !== null) && passes(row, view.filter);
  const query = view.query.trim();
  if (!query) return set.rows.filter(keep);
  const lower = query.toLowerCase();
  const candidates = set.targets().filter((target) => keep(target.row));
  const tiers: BrowserRow[][] = [[], [], []];
  const rest: Target[] = [];
  for (const target of candidates) {
    const tier = matchTier(target.fields, lower);
    if (tier === undefined) rest.push(target);
    else tiers[tier]!.push(target.row);
  }
  const fuzzy = query.length >= fuzzyFromLength ? fuzzysort.go(query, rest, { key: 'search', threshold: 0.2 }).map((result) => result.obj.row) : [];
  return [...tiers.flat(), ...fuzzy];
}

/** A row's status as the browser words it: damaged and interrupted first, then the stored status. */
export function statusLabel(row: Pick<BrowserRow, 'status' | 'damaged' | 'interrupted'>): string {
  if (row.damaged) return rowStates.damaged.label;
  if (row.interrupted) return rowStates.interrupted.label;
  // A cached row is checked without its schema: an unknown status is shown as written.
  return (statusWords[row.status] as (typeof statusWords)[keyof typeof statusWords] | undefined)?.label ?? row.status;
}

/** Sessions per status label, in the header's order, from (label, count) pairs. */
export function tallyLabels(pairs: Iterable<readonly [string, number]>): Record<string, number> {
  const tally = new Map<string, number>();
  for (const [label, n] of pairs) tally.set(label, (tally.get(label) ?? 0) + n);
  const counts: Record<string, number> = {};
  for (const label of labelOrder) if (tally.get(label)) counts[label] = tally.get(label)!;
  return counts;
}

/** Sessions per status, for the header. */
export function countByStatus(rows: readonly BrowserRow[]): Record<string, number> {
  return tallyLabels(rows.map((row) => [statusLabel(row), 1] as const));
}
