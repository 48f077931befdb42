import { statusLabel, tallyLabels, type BrowserRow } from '../state/browser-rows.js';
import type { FirstRows } from '../state/browser-store.js';
import type { IndexHead } from '../store/index-head.js';
import { isInterrupted, withLiveness } from '../store/resumability.js';
import { newestFirst } from '../store/summary-rows.js';
import type { LockState } from '../store/session-lock.js';

/**
 * The first frame's rows from the index head: the newest rows of this directory (or of all, when
 * no session ran here) with the whole list's figures. Null when this directory has sessions but
 * the head does not keep its rows (it was not among the newest directories): then the whole
 * index is read.
 */
export function firstRowsFromHead(head: IndexHead, cwd: string, lockOfId: (id: string) => LockState): FirstRows | null {
  const here = head.directories[cwd] ?? 0;
  const ids = here ? head.newestIn[cwd] : head.newest;
  if (!ids) return null;
  const locks = new Map<string, LockState>();
  const lockOf = (id: string) => locks.get(id) ?? locks.set(id, lockOfId(id)).get(id)!;
  // Damaged rows have no directory: they are listed in every scope.
  const chosen = new Set(here ? [...ids, ...head.damaged] : ids);
  const rows: BrowserRow[] = [...chosen].map((id) => withLiveness(head.rows[id]!, lockOf)).sort(newestFirst);

  const labels: Array<readonly [string, number]> = Object.entries(head.statuses).map(([status, n]) => [statusLabel({ status: status as BrowserRow['status'], damaged: null, interrupted: false }), n]);
  for (const [id, status] of Object.entries(head.live)) labels.push([statusLabel({ status, damaged: null, interrupted: isInterrupted({ status }, lockOf(id)) }), 1]);
  labels.push(['damaged', head.damagedCount]);
  return { rows, whole: { sessions: head.total, counts: tallyLabels(labels), shown: { here: here + head.damagedCount, all: head.total } } };
}
