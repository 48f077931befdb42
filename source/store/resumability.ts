import { terminalStatuses } from '../engine/events.js';
import type { LockState } from './session-lock.js';
import type { SessionSummary } from './session-record.js';

/** A running session whose lock has no live owner: its process was killed or crashed. */
export function isInterrupted(row: SessionSummary, lock: LockState): boolean {
  return row.status === 'running' && lock.kind !== 'held';
}

/** Resumable now: not terminal, and not driven by a live process. */
export function isResumable(row: SessionSummary, lock: LockState): boolean {
  return !terminalStatuses.includes(row.status) && lock.kind !== 'held';
}
