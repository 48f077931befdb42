import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileDurable } from './durable-file.js';
import type { SessionSummary } from './session-record.js';

type SessionStatus = SessionSummary['status'];

/** Rows kept per list: more than a terminal shows in one page. */
export const headRows = 80;
/** Working directories whose newest rows are kept: the ones sessions ran in most recently. */
export const headDirectories = 8;

/**
 * index-head.json: what the browser's first frame needs from a 10,000-row index, in a few hundred
 * KB instead of megabytes — the figures of the whole list and the newest rows of the newest
 * directories. It is written right after index.json and names that file's mtime and size, so a
 * head that does not match the index it came from is never used.
 */
export interface IndexHead {
  schemaVersion: 1;
  index: { mtime: number; size: number };
  total: number;
  /** Rows per status, live and damaged rows left out (a live row's label depends on its lock). */
  statuses: Partial<Record<SessionStatus, number>>;
  /** Created and running rows: whether each is interrupted is decided by its lock when read. */
  live: Record<string, SessionStatus>;
  /** Damaged rows: they are listed in every scope. */
  damaged: string[];
  /** Rows per working directory. */
  directories: Record<string, number>;
  /** Ids of the newest rows, newest first: all directories, then each kept directory. */
  newest: string[];
  newestIn: Record<string, string[]>;
  /** Every row the lists above name. */
  rows: Record<string, SessionSummary>;
}

const headPath = (home: string) => join(home, 'index-head.json');

const isLiveStatus = (status: SessionStatus) => status === 'running' || status === 'created';

/** The head of `rows` (newest first), as of the index file whose stat is given. */
export function buildIndexHead(sorted: readonly SessionSummary[], index: { mtime: number; size: number }): IndexHead {
  const head: IndexHead = { schemaVersion: 1, index, total: sorted.length, statuses: {}, live: {}, damaged: [], directories: {}, newest: [], newestIn: {}, rows: {} };
  const keep = (row: SessionSummary) => {
    head.rows[row.session_id] = row;
    return row.session_id;
  };
  for (const row of sorted) {
    if (row.damaged !== null) head.damaged.push(keep(row));
    else if (isLiveStatus(row.status)) head.live[row.session_id] = row.status;
    else head.statuses[row.status] = (head.statuses[row.status] ?? 0) + 1;
    head.directories[row.cwd] = (head.directories[row.cwd] ?? 0) + 1;
    if (head.newest.length < headRows) head.newest.push(keep(row));
    const list = head.newestIn[row.cwd] ?? (Object.keys(head.newestIn).length < headDirectories ? (head.newestIn[row.cwd] = []) : undefined);
    if (list && list.length < headRows) list.push(keep(row));
  }
  return head;
}

function statOf(path: string): { mtime: number; size: number } | null {
  try {
    const stat = statSync(path);
    return { mtime: stat.mtimeMs, size: stat.size };
  } catch {
    return null;
  }
}

/** Writes the head of the index just written to `home`/index.json. */
export function writeIndexHead(home: string, sorted: readonly SessionSummary[]): void {
  const index = statOf(join(home, 'index.json'));
  if (index) writeFileDurable(headPath(home), JSON.stringify(buildIndexHead(sorted, index)));
}

/** The head, when it matches index.json as it is now; null when missing, damaged or stale. */
export function readIndexHead(home: string): IndexHead | null {
  const index = statOf(join(home, 'index.json'));
  if (!index) return null;
  let head: IndexHead;
  try {
    head = JSON.parse(readFileSync(headPath(home), 'utf8')) as IndexHead;
  } catch {
    return null;
  }
  if (head?.schemaVersion !== 1 || head.index?.mtime !== index.mtime || head.index.size !== index.size) return null;
  const objects = [head.statuses, head.live, head.directories, head.newestIn, head.rows];
  if (typeof head.total !== 'number' || !objects.every((value) => typeof value === 'object' && value !== null) || !Array.isArray(head.newest) || !Array.isArray(head.damaged)) return null;
  const named = [...head.newest, ...head.damaged, ...Object.values(head.newestIn).flat()];
  return named.every((id) => typeof head.rows[id]?.updated_at === 'string') ? head : null;
}
