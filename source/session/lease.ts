import { diskFull } from '../engine/disk-full.js';
import type { EngineEventBody } from '../engine/events.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { describeOwner } from './lock-owner.js';
import type { Lease, LeasedJournal, LockOwner, SessionRepository } from './repository.js';

/** A held session lock plus what the event log should say about how it was taken. */
export interface SessionLease {
  lock: Lease;
  preamble: EngineEventBody[];
  timeoutMs: number;
  /**
   * The team store's lease of the session, beside the lock file, when a store is configured: held
   * (and beaten) by the run's background push, never asked of the network on the step path.
   */
  remote?: RemoteLease;
}

/** What a run knows of the team store's lease of its session (store/remote/background-push.ts). */
export interface RemoteLease {
  /** Who holds it instead, once another process has taken it; undefined while this run holds it (or cannot tell yet). */
  lost(): string | undefined;
  /** Called once, when another process is found holding it. */
  onLost(listener: () => void): void;
}

/** The refusal of a session a live process holds (exit 16): said alike by a resume and by its dry run. */
export function sessionInUse(id: string, holder: LockOwner): AcodeError {
  return new AcodeError(
    `session ${id} is in use by ${describeOwner(holder)}. Wait for it to finish or stop it there with Ctrl+C; if that process is gone, 'acode sessions unlock ${id}' removes the lock`,
    ExitCode.locked,
    'ACODE-RESUME-003',
  );
}

/**
 * Takes the session's lock, or refuses with exit 16 / ACODE-RESUME-003 and what to do.
 * `logEpoch` is the highest lock epoch in the session's event log: the new epoch goes above it.
 */
export async function takeLease(repository: SessionRepository, id: string, lockTimeoutSeconds: number, logEpoch = 0): Promise<SessionLease> {
  const timeoutMs = lockTimeoutSeconds * 1000;
  let result;
  try {
    result = await repository.lease(id, { timeoutMs, floorEpoch: logEpoch });
  } catch (error) {
    // The session's folder went while this process got ready to take it (acode sessions cleanup or
    // delete, elsewhere, while a question here waited for its answer).
    if ((error as { code?: string }).code === 'ENOENT') {
      throw new AcodeError(`session ${id} was deleted meanwhile (acode sessions cleanup or delete, elsewhere); nothing was run`, ExitCode.failure, 'ACODE-RESUME-005');
    }
    const full = diskFull(error);
    if (!full) throw error;
    throw new AcodeError(`disk full writing ${full.path ?? `the lock of session ${id}`}; free space, then acode resume ${id}`, ExitCode.failure);
  }
  if (!result.acquired) throw sessionInUse(id, result.holder);
  const preamble: EngineEventBody[] = result.tookOverFrom
    ? [{ type: 'lock_taken_over', previous_pid: result.tookOverFrom.owner.pid, previous_host: result.tookOverFrom.owner.host, why: result.tookOverFrom.why, previous_heartbeat_at: result.tookOverFrom.owner.heartbeat_at }]
    : [];
  return { lock: result.lease, preamble, timeoutMs };
}

/** Ties a journal to the lease: it refuses to write (events or checkpoint) once another process holds the lock. */
export function guardJournal(journal: LeasedJournal, lease: SessionLease): () => void {
  journal.guardWith(() => lease.lock.stillOwned() && lease.remote?.lost() === undefined);
  return () => journal.seal('the session lock was taken by another process');
}
