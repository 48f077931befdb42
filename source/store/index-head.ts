import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './durable-file.js';
import { fileStamp, sameStamp } from './file-mtime.js';
import { applyTail } from './index-head-tail.js';
import { indexFiles, logName, readIndexLog, type IndexEntry, type IndexVersion } from './index-log.js';
import { currentBase } from './merged-index.js';
import { isObject } from './session-peek.js';
import { SessionLock } from './session-lock.js';
import type { SessionSummary } from './session-record.js';
import { isLiveStatus, plausibleRow } from './summary-rows.js';

/** Rows kept per list: more than a terminal shows in one page. */
export const headRows = 80;
/** Working directories whose newest rows are kept: the ones sessions ran in most recently. */
export const headDirectories = 8;

type SessionStatus = SessionSummary['status'];

/**
 * index-head.json: what the browser's first frame needs from an index of up to a hundred thousand
 * rows, in a few hundred KB instead of tens of megabytes — the figures of the whole list and the
 * newest rows of the newest directories. It names the exact version of the index it was made from
 * (the base file's mtime, size and inode, and how far the logs were read): a reader applies the
 * log lines written since, and never uses a head made from another base.
 */
export interface IndexHead {
  schemaVersion: 2;
  index: IndexVersion;
  total: number;
  /** Rows per status, live and damaged rows left out (a live row's label depends on its lock). */
  statuses: Partial<Record<SessionStatus, number>>;
  /**
   * Created and running rows, ids per status: whether each is interrupted is decided by its lock
   * when read. Lists, not one object keyed by id: a store may hold thousands, parsed on every start.
   */
  live: Partial<Record<SessionStatus, string[]>>;
  /**
   * Live rows whose session had a lock file when the head was written (and, once read, live rows
   * changed since): where a lock may be held. The others had none; the first frame of a store with
   * thousands of live rows counts them as interrupted without a look at each (see firstRowsFromHead).
   */
  locked: string[];
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

/**
 * The head of `sorted` (the index's rows, newest first), naming the index version it was read
 * from; `hasLockFile` says which live sessions have a lock file now.
 */
export function buildIndexHead(sorted: readonly SessionSummary[], index: IndexVersion, hasLockFile: (id: string) => boolean): IndexHead {
  const head: IndexHead = { schemaVersion: 2, index, total: sorted.length, statuses: {}, live: {}, locked: [], damagedCount: 0, damaged: [], directories: {}, newest: [], newestIn: {}, rows: {} };
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
    if (isLiveStatus(row.status)) {
      (head.live[row.status] ??= []).push(row.session_id);
      if (hasLockFile(row.session_id)) head.locked.push(row.session_id);
    } else head.statuses[row.status] = (head.statuses[row.status] ?? 0) + 1;
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
export function writeIndexHead(home: string, sorted: readonly SessionSummary[], index: IndexVersion): void {
  // A lock's file is there (held or stale) or not: no timeout applies to that question.
  const hasLockFile = (id: string) => SessionLock.inspect(join(home, 'sessions', id), Number.POSITIVE_INFINITY).kind !== 'free';
  try {
    writeFileAtomic(headPath(home), JSON.stringify(buildIndexHead(sorted, index, hasLockFile)));
  } catch {
    // A head that names another index version is not used; nothing else depends on this file.
  }
}

function wellFormed(head: IndexHead): boolean {
  if (typeof head.total !== 'number' || typeof head.damagedCount !== 'number' || !Array.isArray(head.newest) || !Array.isArray(head.damaged) || !Array.isArray(head.locked)) return false;
  if (![head.statuses, head.live, head.directories, head.newestIn, head.rows, head.index.through].every(isObject)) return false;
  if (!Object.values(head.live).every((ids) => Array.isArray(ids) && ids.every((id) => typeof id === 'string'))) return false;
  const named = [...head.newest, ...head.damaged, ...Object.values(head.newestIn).flatMap((ids) => (Array.isArray(ids) ? ids : [null]))];
  return named.every((id) => typeof id === 'string' && plausibleRow(head.rows[id], id));
}

/** The log lines written since `head` was made; null when a log it needs is gone (a compaction ran). */
function linesSince(home: string, { through }: IndexVersion): IndexEntry[] | null {
  const entries: IndexEntry[] = [];
  for (const generation of indexFiles(home).logs.filter((g) => g >= through.generation)) {
    let read;
    try {
      read = readIndexLog(join(home, logName(generation)), generation === through.generation ? through.offset : 0);
    } catch {
      return null;
    }
    if (!read) return null;
    entries.push(...read.entries);
  }
  return entries;
}

/**
 * The head, brought up to date with the log lines written since it was made; null when it is
 * missing, damaged, made from another base, or when a line cannot be applied to it (a change to a
 * session it holds nothing about, by a writer that did not say what it replaced).
 */
export function readIndexHead(home: string): IndexHead | null {
  let head: IndexHead;
  try {
    head = JSON.parse(readFileSync(headPath(home), 'utf8')) as IndexHead;
  } catch {
    return null;
  }
  if (!isObject(head) || head.schemaVersion !== 2 || !isObject(head.index) || !wellFormed(head)) return null;
  const base = currentBase(indexFiles(home));
  const named = head.index.base;
  if (base === null ? named !== null : named === null || named.name !== base.name || !sameStamp(named.stamp, fileStamp(join(home, base.name)))) return null;
  const tail = linesSince(home, head.index);
  return tail && applyTail(head, tail, headRows) ? head : null;
}
