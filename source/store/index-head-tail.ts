import type { IndexHead } from './index-head.js';
import { priorOf, type IndexEntry, type PriorRow } from './index-log.js';
import type { SessionSummary } from './session-record.js';
import { isLiveStatus, newestFirst } from './summary-rows.js';

const decrement = (counts: Record<string, number>, key: string) => {
  const left = (counts[key] ?? 0) - 1;
  if (left > 0) counts[key] = left;
  else delete counts[key];
};
const without = (list: string[], id: string) => {
  const at = list.indexOf(id);
  if (at !== -1) list.splice(at, 1);
};
const increment = (counts: Record<string, number>, key: string) => void (counts[key] = (counts[key] ?? 0) + 1);

/** Takes a row out of the head's figures. */
function subtract(head: IndexHead, id: string, prior: PriorRow): void {
  head.total--;
  if (prior.damaged) {
    head.damagedCount--;
    return;
  }
  if (isLiveStatus(prior.status)) without(head.live[prior.status] ?? [], id);
  else decrement(head.statuses, prior.status);
  decrement(head.directories, prior.cwd);
}

/** Counts a row in the head's figures; a live one joins the rows whose lock is looked at. */
function add(head: IndexHead, row: SessionSummary): void {
  head.total++;
  if (row.damaged !== null) {
    head.damagedCount++;
    return;
  }
  if (isLiveStatus(row.status)) {
    (head.live[row.status] ??= []).push(row.session_id);
    if (!head.locked.includes(row.session_id)) head.locked.push(row.session_id);
  } else increment(head.statuses, row.status);
  increment(head.directories, row.cwd);
}

/**
 * Puts `row` in its place in `list` (ids, newest first): a prefix of the `scope` rows newest first,
 * at most `limit` long. A row older than the list's last goes in only when the list held every
 * row of its scope — otherwise a row the head never had may come between.
 */
function insert(list: string[], row: SessionSummary, rows: IndexHead['rows'], scope: number, limit: number): void {
  let at = list.findIndex((id) => newestFirst(row, rows[id]!) < 0);
  if (at === -1) {
    if (list.length + 1 !== scope) return;
    at = list.length;
  }
  list.splice(at, 0, row.session_id);
  if (list.length > limit) list.pop();
}

/**
 * Applies log lines written since the head was made, in place. What each line replaces is taken
 * from the head's own rows when it has them, else from the line (`prior`); false when neither
 * knows, or when a list the first frame draws from fell below half a page of what it should show
 * (deletions took rows the head cannot replace): then the whole index must be read.
 */
export function applyTail(head: IndexHead, entries: readonly IndexEntry[], limit: number): boolean {
  const liveStatus = (id: string) => (Object.keys(head.live) as Array<SessionSummary['status']>).find((status) => head.live[status]!.includes(id));
  for (const entry of entries) {
    const { id } = entry;
    const held = head.rows[id];
    let prior: PriorRow | null | undefined = held ? priorOf(held) : entry.prior;
    // A live row the lists do not show: its status is in `live` (a session never changes directory).
    const status = held ? undefined : liveStatus(id);
    if (status) {
      const cwd = entry.op === 'put' ? entry.row.cwd : entry.prior?.cwd;
      prior = cwd === undefined ? undefined : { status, cwd, damaged: false };
    }
    if (prior === undefined) return false;
    if (held && entry.op === 'put' && newestFirst(held, entry.row) < 0) continue; // an older line appended again
    if (prior) subtract(head, id, prior);
    for (const list of [head.newest, head.damaged, ...Object.values(head.newestIn)]) without(list, id);
    if (entry.op === 'del') {
      delete head.rows[id];
      continue;
    }
    const { row } = entry;
    add(head, row);
    head.rows[id] = row;
    insert(head.newest, row, head.rows, head.total, limit);
    if (row.damaged !== null) {
      insert(head.damaged, row, head.rows, head.damagedCount, limit);
      continue;
    }
    // A directory no session ran in before has its whole list here.
    if (head.directories[row.cwd] === 1) head.newestIn[row.cwd] ??= [];
    const list = head.newestIn[row.cwd];
    if (list) insert(list, row, head.rows, head.directories[row.cwd]!, limit);
  }
  const enough = (list: string[], scope: number) => list.length >= Math.min(scope, limit / 2);
  for (const [cwd, list] of Object.entries(head.newestIn)) if (!enough(list, head.directories[cwd] ?? 0)) delete head.newestIn[cwd];
  return enough(head.newest, head.total) && enough(head.damaged, head.damagedCount);
}
