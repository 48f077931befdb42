import type { ApprovalDesk } from '../engine/approval.js';
import { sessionAgentCli } from './agent-cli-port.js';
import { SessionExecutor, type SessionRunOptions, type RunSummary } from '../engine/session-executor.js';
import { diskFull } from '../engine/disk-full.js';
import { JournalSealedError } from '../engine/journal.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { describeOwner } from './lock-owner.js';
import { pricerFor, type StepPricer } from '../engine/prices.js';
import type { PreparedRun } from './prepared-run.js';

/** The presentation of a run (a screen, plain lines), opened by the command once the executor exists. */
export interface RunView {
  /** Answers approval steps that no answer given up front (--approve …) did. */
  approvals?: ApprovalDesk;
  /** Ends the presentation: called once the run has ended and its session was released. */
  close(): Promise<void>;
}

export interface ExecuteOptions {
  /** Answers given up front (--approve, --response, --reject): asked before the view. */
  approvals?: ApprovalDesk;
  /**
   * Opens the view over the executor (subscribe, cancel). Called inside the guard that releases the
   * session, so a view that cannot open (or an announcement that cannot be written) still lets it go.
   */
  open(executor: SessionExecutor): Promise<RunView>;
}

export interface RunOutcome {
  summary: RunSummary;
  /** The person asked it to stop (Ctrl+C, SIGTERM). */
  userStopped: boolean;
}

/** Engine-shape: what the executor is given of a prepared run. */
function executorOptions(prepared: PreparedRun, approvals: ApprovalDesk, price: StepPricer | undefined): SessionRunOptions {
  const { sessionId, spec, pattern, variables, provider, journal, progress, cwd, autoResume, blobs, artifacts, lease, reusable, executors } = prepared;
  // Every event carries the lock epoch, so a takeover fences out whatever this process still appends.
  return { sessionId, spec, pattern, variables, provider, executors, journal, progress, cwd, autoResume, approvals, blobs, artifacts, price, reusable, epoch: lease?.lock.epoch ?? 0, agentCli: sessionAgentCli() };
}

/** Runs the executor with the lease heartbeated; what a lost lock or a full disk means, said as an AcodeError. */
async function drive(prepared: PreparedRun, executor: SessionExecutor): Promise<RunSummary> {
  const { lease, sessionId, journal } = prepared;
  let lockLost = false;
  const onLost = () => {
    if (lockLost) return;
    lockLost = true;
    prepared.onLockLost?.();
    executor.cancel();
  };
  lease?.lock.startHeartbeat(Math.max(250, lease.timeoutMs / 4), onLost);
  // Another machine took the team store's lease (this process could not reach the store past the timeout).
  lease?.remote?.onLost(onLost);
  try {
    for (const event of prepared.preamble) executor.emit(event);
    const summary = await executor.run();
    // A run that ends without a final event (waiting for approval) never hit the sealed journal.
    if (lockLost) throw new JournalSealedError('the session lock was taken by another process');
    return summary;
  } catch (error) {
    // Whatever failed, a process that no longer holds the lock only says so: a takeover may have
    // removed its temp files or changed the session under it, and it must not write a pause.
    if (error instanceof JournalSealedError || lockLost || journal.stillOwned?.() === false) {
      const elsewhere = lease?.remote?.lost();
      if (elsewhere !== undefined) {
        throw new AcodeError(
          `the team store's lease of session ${sessionId} was taken by ${elsewhere}; this process stopped without writing more, and what it wrote past that point is fenced out there (a lease is taken over once its heartbeat has been silent for resume.lock_timeout_seconds, ${lease!.timeoutMs / 1000} s: this process could not reach the store that long). See 'acode sessions list --remote'`,
          ExitCode.locked,
          'ACODE-RESUME-003',
        );
      }
      if (lockLost && lease?.lock.stillOwned()) {
        // Its heartbeat wrote the lock file back just after it was removed or taken (the epoch mark
        // above its own says so): this process lets it go, as a superseded holder must.
        throw new AcodeError(`the lock of session ${sessionId} was taken from this process while it ran (by 'acode sessions unlock', or by another process once this one had been stopped or suspended past resume.lock_timeout_seconds, ${lease.timeoutMs / 1000} s); it stopped without writing more. 'acode resume ${sessionId}' goes on`, ExitCode.locked, 'ACODE-RESUME-003');
      }
      if (lease?.lock.sessionDeleted()) {
        throw new AcodeError(`session ${sessionId} was deleted while this process ran it; it stopped without writing more`, ExitCode.locked, 'ACODE-RESUME-003');
      }
      // Said as the lock stands now: a takeover that has ended since looks like an unlock, so both are named.
      const now = lease?.lock.lockNow(lease.timeoutMs) ?? { kind: 'free' };
      if (now.kind === 'held') {
        throw new AcodeError(`lost the lock of session ${sessionId} to ${describeOwner(now.owner)}, which now drives it; this process stopped without writing more. See 'acode sessions show ${sessionId}'`, ExitCode.locked, 'ACODE-RESUME-003');
      }
      const who = now.kind === 'stale' ? `by ${describeOwner(now.owner)}, which has stopped since (${now.why})` : "by another process that has let it go since, or by 'acode sessions unlock'";
      throw new AcodeError(`the lock of session ${sessionId} was taken from this process while it ran, ${who}; this process stopped without writing more. See 'acode sessions show ${sessionId}'; 'acode resume ${sessionId}' goes on if it is not finished`, ExitCode.locked, 'ACODE-RESUME-003');
    }
    const full = diskFull(error);
    if (full) {
      // A full disk is no fault of the session: it pauses, resumable once there is space again.
      const message = `disk full writing ${full.path ?? 'a session file'}; free space, then ${prepared.saved ? `acode resume ${sessionId}` : 'run the workflow again'}`;
      journal.pauseFromLog?.('disk_full', message);
      throw new AcodeError(message, ExitCode.failure);
    }
    throw error;
  }
}

/**
 * Executes a prepared run — started, resumed or forked alike — and always releases it: the lease
 * and the journal are let go however the run ends, and also when it fails before its first step
 * (the view cannot open, the executor cannot be built). Then the view is closed.
 */
export async function executeRun(prepared: PreparedRun, options: ExecuteOptions): Promise<RunOutcome> {
  let view: RunView | undefined;
  try {
    // The view answers approval steps once it is up; answers given up front come first.
    const desk: { target?: ApprovalDesk } = {};
    const approvals: ApprovalDesk = {
      answer: async (request, signal) => (await options.approvals?.answer(request, signal)) ?? desk.target?.answer(request, signal),
    };
    // Every priced call's dollars go in the log (runtime.budgets.max_cost_usd counts them), capped or not:
    // a cap added later by `--set` counts what was spent before it.
    const executor = new SessionExecutor(executorOptions(prepared, approvals, await pricerFor(prepared.spec)));
    view = await options.open(executor);
    desk.target = view.approvals;
    const summary = await drive(prepared, executor);
    return { summary, userStopped: executor.cancelled };
  } finally {
    try {
      prepared.release();
    } finally {
      await view?.close();
    }
  }
}
