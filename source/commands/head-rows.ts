import { statusLabel, tallyLabels, type BrowserRow } from '../state/browser-rows.js';
import type { FirstRows } from '../state/browser-store.js';
import type { IndexHead } from '../store/index-head.js';
import { isInterrupted, withLiveness } from '../store/resumability.js';
import { newestFirst } from '../store/summary-rows.js';
import type { LockState } from '../store/session-lock.js';

/**
 * Live rows whose locks the first frame looks at one by one; past this many (each look is a file
 * system call, ~10 µs) only those that may hold one are looked at (see below).
 */
export const liveRowsCheckedOneByOne = 2000;

const free: LockState = { kind: 'free' };

/**
 * The first frame's rows from the index head: the newest rows of this directory (or of all, when
 * no session ran here) with the whole list's figures. Null when this directory has sessions but
 * the head does not keep its rows (it was not among the newest directories): then the whole
 * index is read. In a store with more live rows than `checkedOneByOne`, a live row that had no
 * lock file when the head was written, is not shown and did not change since is counted as
 * interrupted without a look at its lock: a resume that started since without changing its
 * status is counted right by the first look at the disk, a moment later.
 */
export function firstRowsFromHead(head: IndexHead, cwd: string, lockOfId: (id: string) => LockState, checkedOneByOne = liveRowsCheckedOneByOne): FirstRows | null {
  const here = head.directories[cwd] ?? 0;
  const ids = here ? head.newestIn[cwd] : head.newest;
  if (!ids) return null;
  const locks = new Map<string, LockState>();
  const lockOf = (id: string) => locks.get(id) ?? locks.set(id, lockOfId(id)).get(id)!;
  // Damaged rows have no directory: they are listed in every scope.
  const chosen = new Set(here ? [...ids, ...head.damaged] : ids);
  const rows: BrowserRow[] = [...chosen].map((id) => withLiveness(head.rows[id]!, lockOf)).sort(newestFirst);

  const labels: Array<readonly [string, number]> = Object.entries(head.statuses).map(([status, n]) => [statusLabel({ status: status as BrowserRow['status'], damaged: null, interrupted: false }), n]);
  const live = Object.entries(head.live) as Array<[BrowserRow['status'], string[]]>;
  const liveLabel = (status: BrowserRow['status'], lock: LockState) => statusLabel({ status, damaged: null, interrupted: isInterrupted({ status }, lock) });
  const mayBeHeld = live.reduce((n, [, sessions]) => n + sessions.length, 0) <= checkedOneByOne ? null : new Set([...head.locked, ...chosen]);
  for (const [status, sessions] of live) {
    let unlooked = 0;
    for (const id of sessions) {
      if (mayBeHeld && !mayBeHeld.has(id)) unlooked++;
      else labels.push([liveLabel(status, lockOf(id)), 1]);
    }
    labels.push([liveLabel(status, free), unlooked]);
  }
  labels.push(['damaged', head.damagedCount]);
  return { rows, whole: { sessions: head.total, counts: tallyLabels(labels), shown: { here: here + head.damagedCount, all: head.total } } };
}
