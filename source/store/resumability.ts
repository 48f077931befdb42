import { terminalStatuses } from '../engine/events.js';
import type { LockState } from './session-lock.js';
import type { SessionSummary } from './session-record.js';
import { isLiveStatus } from './summary-rows.js';

/**
 * A started session whose lock has no live owner: its process was killed or crashed. `created`
 * counts as started: the index keeps that status until the session's status changes again.
 */
export function isInterrupted(row: Pick<SessionSummary, 'status'>, lock: LockState): boolean {
  return isLiveStatus(row.status) && lock.kind !== 'held';
}

/** Resumable now: not terminal, and not driven by a live process. */
export function isResumable(row: SessionSummary, lock: LockState): boolean {
  return !terminalStatuses.includes(row.status) && lock.kind !== 'held';
}

/** Resumable but for its lock: a live process drives the session now. */
export function heldByLiveProcess(row: SessionSummary, lock: LockState): lock is LockState & { kind: 'held' } {
  return !terminalStatuses.includes(row.status) && lock.kind === 'held';
}

/**
 * A listed row with its liveness. Only sessions that can hold a lock (not terminal, not damaged)
 * cost a lock look-up; the row was parsed for this listing, so it is extended in place.
 */
export function withLiveness<T extends SessionSummary>(row: T, lockOf: (id: string) => LockState): T & { interrupted: boolean; resumable: boolean } {
  if (terminalStatuses.includes(row.status) || row.damaged) return Object.assign(row, { interrupted: false, resumable: false });
  const lock = lockOf(row.session_id);
  return Object.assign(row, { interrupted: isInterrupted(row, lock), resumable: isResumable(row, lock) });
}
