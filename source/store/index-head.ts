import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './durable-file.js';
import { fileStamp, sameStamp, type FileStamp } from './file-mtime.js';
import { isObject } from './session-peek.js';
import type { SessionSummary } from './session-record.js';
import { isLiveStatus, plausibleRow } from './summary-rows.js';

/** Rows kept per list: more than a terminal shows in one page. */
export const headRows = 80;
/** Working directories whose newest rows are kept: the ones sessions ran in most recently. */
export const headDirectories = 8;

type SessionStatus = SessionSummary['status'];

/**
 * index-head.json: what the browser's first frame needs from a 10,000-row index, in a few hundred
 * KB instead of megabytes — the figures of the whole list and the newest rows of the newest
 * directories. It names the exact index.json it was made from (mtime, size, inode), so a head that
 * does not match the index as it is now is never used.
 */
export interface IndexHead {
  schemaVersion: 1;
  index: FileStamp;
  total: number;
  /** Rows per status, live and damaged rows left out (a live row's label depends on its lock). */
  statuses: Partial<Record<SessionStatus, number>>;
  /** Created and running rows: whether each is interrupted is decided by its lock when read. */
  live: Record<string, SessionStatus>;
  /** Damaged rows (they have no directory and are listed in every scope): how many, and the newest. */
  damagedCount: number;
  damaged: string[];
  /** Rows per working directory (damaged rows left out). */
  directories: Record<string, number>;
  /** Ids of the newest rows, newest first: all directories, then each kept directory. */
  newest: string[];
  newestIn: Record<string, string[]>;
  /** Every row the lists above name. */
  rows: Record<string, SessionSummary>;
}

const headPath = (home: string) => join(home, 'index-head.json');

/** The head of `sorted` (the index's rows, newest first), naming the index file by its stamp. */
export function buildIndexHead(sorted: readonly SessionSummary[], index: FileStamp): IndexHead {
  const head: IndexHead = { schemaVersion: 1, index, total: sorted.length, statuses: {}, live: {}, damagedCount: 0, damaged: [], directories: {}, newest: [], newestIn: {}, rows: {} };
  const keep = (row: SessionSummary) => {
    head.rows[row.session_id] = row;
    return row.session_id;
  };
  for (const row of sorted) {
    if (head.newest.length < headRows) head.newest.push(keep(row));
    if (row.damaged !== null) {
      if (head.damagedCount++ < headRows) head.damaged.push(keep(row));
      continue;
    }
    if (isLiveStatus(row.status)) head.live[row.session_id] = row.status;
    else head.statuses[row.status] = (head.statuses[row.status] ?? 0) + 1;
    head.directories[row.cwd] = (head.directories[row.cwd] ?? 0) + 1;
    const list = head.newestIn[row.cwd] ?? (Object.keys(head.newestIn).length < headDirectories ? (head.newestIn[row.cwd] = []) : undefined);
    if (list && list.length < headRows) list.push(keep(row));
  }
  return head;
}

/**
 * Writes the head of the index version `index` names. A cache: written atomically but without
 * fsync, and a failure to write it is not an error (the browser then reads the whole index).
 * Its rows are the index's own, each redacted when it entered the index (SessionIndex).
 */
export function writeIndexHead(home: string, sorted: readonly SessionSummary[], index: FileStamp): void {
  try {
    writeFileAtomic(headPath(home), JSON.stringify(buildIndexHead(sorted, index)));
  } catch {
    // An old head names an older index, so it is not used; nothing else depends on this file.
  }
}

function wellFormed(head: IndexHead): boolean {
  if (typeof head.total !== 'number' || typeof head.damagedCount !== 'number' || !Array.isArray(head.newest) || !Array.isArray(head.damaged)) return false;
  if (![head.statuses, head.live, head.directories, head.newestIn, head.rows].every(isObject)) return false;
  if (!Object.values(head.live).every((status) => typeof status === 'string')) return false;
  const named = [...head.newest, ...head.damaged, ...Object.values(head.newestIn).flatMap((ids) => (Array.isArray(ids) ? ids : [null]))];
  return named.every((id) => typeof id === 'string' && plausibleRow(head.rows[id], id));
}

/** The head, when it names index.json exactly as it is now; null when missing, damaged or stale. */
export function readIndexHead(home: string): IndexHead | null {
  const index = fileStamp(join(home, 'index.json'));
  if (!index) return null;
  let head: IndexHead;
  try {
    head = JSON.parse(readFileSync(headPath(home), 'utf8')) as IndexHead;
  } catch {
    return null;
  }
  if (!isObject(head) || head.schemaVersion !== 1 || !isObject(head.index) || !sameStamp(head.index, index)) return null;
  return wellFormed(head) ? head : null;
}
