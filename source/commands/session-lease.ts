import { hostname } from 'node:os';
import { join } from 'node:path';
import { diskFull } from '../engine/disk-full.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { formatAgo } from '../human-units.js';
import type { EngineEventBody } from '../engine/events.js';
import { SessionLock, type LockOwner } from '../store/session-lock.js';
import type { SessionJournal } from '../store/session-journal.js';
import type { SessionHandle } from '../store/session-store.js';

/** A held session lock plus what the event log should say about how it was taken. */
export interface SessionLease {
  lock: SessionLock;
  preamble: EngineEventBody[];
  timeoutMs: number;
}

export function describeOwner(owner: LockOwner): string {
  return `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`} since ${owner.started_at} (heartbeat ${formatAgo(Date.parse(owner.heartbeat_at))})`;
}

/**
 * Takes the session's lock, or refuses with exit 16 / ACODE-RESUME-003 and what to do.
 * `logEpoch` is the highest lock epoch in the session's event log: the new epoch goes above it.
 */
export function leaseSession(handle: SessionHandle, lockTimeoutSeconds: number, logEpoch = 0): SessionLease {
  const timeoutMs = lockTimeoutSeconds * 1000;
  const id = handle.record.session_id;
  let result: ReturnType<typeof SessionLock.acquire>;
  try {
    result = SessionLock.acquire(handle.dir, timeoutMs, logEpoch);
  } catch (error) {
    const full = diskFull(error);
    if (!full) throw error;
    throw new AcodeError(`disk full writing ${full.path ?? join(handle.dir, 'lock')}; free space, then acode resume ${id}`, ExitCode.failure);
  }
  if (!result.acquired) {
    throw new AcodeError(
      `session ${id} is in use by ${describeOwner(result.state.owner)}. Wait for it to finish or stop it there with Ctrl+C; if that process is gone, 'acode sessions unlock ${id}' removes the lock`,
      ExitCode.locked,
      'ACODE-RESUME-003',
    );
  }
  const preamble: EngineEventBody[] = result.tookOverFrom
    ? [{ type: 'lock_taken_over', previous_pid: result.tookOverFrom.owner.pid, previous_host: result.tookOverFrom.owner.host, why: result.tookOverFrom.why }]
    : [];
  return { lock: result.lock, preamble, timeoutMs };
}

/** Ties a journal to the lease: it refuses to write (events or checkpoint) once another process holds the lock. */
export function guardJournal(journal: SessionJournal, lease: SessionLease): () => void {
  journal.guardWith(() => lease.lock.stillOwned());
  return () => journal.seal('the session lock was taken by another process');
}
