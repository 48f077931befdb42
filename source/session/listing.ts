import { terminalStatuses } from '../engine/events.js';
import { withLiveness } from '../store/resumability.js';
import type { LockState, SessionRepository, SessionSummary } from './repository.js';

/** A listed session with its liveness: started but its process gone, and resumable now. */
export type ListedSession = SessionSummary & { interrupted: boolean; resumable: boolean };

/** Only sessions that can hold a lock (not terminal, not damaged) cost a lock look-up. */
const canHoldLock = (row: SessionSummary) => !terminalStatuses.includes(row.status) && !row.damaged;

/** Every session that `keep` keeps, newest first, with its liveness judged by its lock. */
export async function listWithLiveness(repository: SessionRepository, lockTimeoutMs: number, keep: (row: SessionSummary) => boolean = () => true): Promise<ListedSession[]> {
  const rows = (await repository.list()).filter(keep);
  const locks = new Map<string, LockState>(
    await Promise.all(rows.filter(canHoldLock).map(async (row) => [row.session_id, await repository.lockState(row.session_id, lockTimeoutMs)] as const)),
  );
  return rows.map((row) => withLiveness(row, (id) => locks.get(id) ?? { kind: 'free' }));
}
