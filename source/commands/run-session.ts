import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { stepNamer } from '../engine/pattern.js';
import { patternFor } from '../engine/patterns/pattern-for.js';
import { SessionExecutor, type SessionRunOptions as ExecutorOptions, type RunSummary } from '../engine/session-executor.js';
import type { EngineEventBody } from '../engine/events.js';
import { diskFull } from '../engine/disk-full.js';
import { JournalSealedError } from '../engine/journal.js';
import type { SessionLease } from './session-lease.js';
import { paint, type CommandContext } from './command-context.js';
import { plainLine } from './plain-progress.js';
import { importInk } from './import-ink.js';
import type { ApprovalDesk } from '../engine/approval.js';
import { approvalHint } from '../state/approval-hint.js';
import { redact } from '../secrets/redactor.js';

export interface SessionRunOptions extends ExecutorOptions {
  /** False for --no-save-session: nothing to resume, so no resume hint. */
  saved: boolean;
  json: boolean;
  /** Closes the journal's file handles once the run has ended. */
  close?: () => void;
  /** Events recorded before the first step (lock takeover, resume plan, fork). */
  preamble?: EngineEventBody[];
  /** The session lock this run holds: heartbeated while it runs, released at the end. */
  lease?: SessionLease;
  /** Seals the journal when the lock is lost, so this process writes nothing more. */
  onLockLost?: () => void;
}

function exitCodeFor(summary: RunSummary, userStopped: boolean): ExitCode {
  if (summary.status === 'completed') return ExitCode.ok;
  if (userStopped && (summary.status === 'paused' || summary.status === 'awaiting_approval')) return ExitCode.interrupted;
  return ExitCode.failure;
}



function closingLine(ctx: CommandContext, summary: RunSummary, saved: boolean): string {
  const counts = `${summary.steps_total} steps (${summary.steps_executed} executed, ${summary.steps_skipped} skipped) · tokens ${summary.tokens.input} in / ${summary.tokens.output} out`;
  if (summary.status === 'completed') return `${paint(ctx, 32, '✓ completed')}: ${counts}`;
  if (summary.status === 'awaiting_approval') return `${paint(ctx, 35, '⏸ awaiting approval')}: ${counts}${saved ? `\n${approvalHint(summary.session_id)}` : ''}`;
  const resume = saved ? `\nResume with: acode resume ${summary.session_id}` : '';
  const label = summary.status === 'paused' ? paint(ctx, 33, '⏸ paused') : summary.status === 'cancelled' ? paint(ctx, 90, '■ cancelled') : paint(ctx, 31, '✗ failed');
  return `${label}: ${counts}${summary.status === 'paused' ? resume : ''}`;
}

/**
 * Runs (or resumes) one session with the right face: the Ink run view for a person at a
 * terminal, plain lines on stderr otherwise, and one JSON object on stdout with --json.
 * Ctrl+C or SIGTERM pauses; a second one leaves at once (the checkpoint is already durable).
 */
export async function runSession(ctx: CommandContext, options: SessionRunOptions): Promise<ExitCode> {
  // The run view answers approval steps once it is up; answers given as flags come first.
  const desk: { target?: ApprovalDesk } = {};
  const approvals: ApprovalDesk = {
    answer: async (request, signal) => (await options.approvals?.answer(request, signal)) ?? desk.target?.answer(request, signal),
  };
  // Every event carries the lock epoch, so a takeover fences out whatever this process still appends.
  const pattern = options.pattern ?? patternFor(options.spec);
  const executor = new SessionExecutor({ ...options, pattern, approvals, epoch: options.lease?.lock.epoch ?? 0 });
  const shape = pattern.shape(options.progress);
  const total = shape.length;
  const name = stepNamer(pattern, options.progress);
  const useInk = ctx.interactive && !options.json;

  let stopRequests = 0;
  const onSignal = () => {
    if (++stopRequests > 1) ctx.hardExit(ExitCode.interrupted);
    executor.cancel();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let screen: { close(): Promise<void> } | undefined;
  if (useInk) {
    // The view shows steps; what happened before them (a lock takeover) goes above it, once.
    for (const event of options.preamble ?? []) {
      const line = plainLine(event, total, name);
      if (line) ctx.stderr.write(`acode: ${redact(line)}\n`);
    }
    // React and Ink load only here, so plain commands never pay for them.
    const [{ bindEngine }, { openRunScreen }] = await Promise.all([import('../state/bind-engine.js'), importInk(() => import('../ui/run/run-screen.js'))]);
    const { store, approvals: viewDesk } = bindEngine(executor, { sessionId: options.sessionId, workflowName: options.spec.name, pattern: pattern.type, steps: shape });
    desk.target = viewDesk;
    screen = openRunScreen(store, () => ctx.hardExit(ExitCode.interrupted));
  } else {
    ctx.stderr.write(`acode: session ${options.sessionId} · ${options.spec.name}\n`);
    executor.subscribe((event) => {
      const line = plainLine(event, total, name);
      if (line) ctx.stderr.write(`${redact(line)}\n`);
    });
  }

  let summary: RunSummary;
  let lockLost = false;
  options.lease?.lock.startHeartbeat(Math.max(250, options.lease.timeoutMs / 4), () => {
    lockLost = true;
    options.onLockLost?.();
    executor.cancel();
  });
  try {
    for (const event of options.preamble ?? []) executor.emit(event);
    summary = await executor.run();
    // A run that ends without a final event (waiting for approval) never hit the sealed journal.
    if (lockLost) throw new JournalSealedError('the session lock was taken by another process');
  } catch (error) {
    // Whatever failed, a process that no longer holds the lock only says so: a takeover may have
    // removed its temp files or changed the session under it, and it must not write a pause.
    if (error instanceof JournalSealedError || lockLost || options.journal.stillOwned?.() === false) {
      if (lockLost && options.lease?.lock.stillOwned()) {
        // Nobody took it: this process stalled past the lock timeout and let the lock go, as a frozen holder must.
        throw new AcodeError(`this process stalled longer than the lock timeout (resume.lock_timeout_seconds, ${options.lease.timeoutMs / 1000} s) and stopped so that another could take session ${options.sessionId} over; nothing is lost: 'acode resume ${options.sessionId}' goes on`, ExitCode.locked, 'ACODE-RESUME-003');
      }
      if (options.lease?.lock.sessionDeleted()) {
        throw new AcodeError(`session ${options.sessionId} was deleted while this process ran it; it stopped without writing more`, ExitCode.locked, 'ACODE-RESUME-003');
      }
      throw new AcodeError(`lost the lock of session ${options.sessionId} to another process, which now drives it; this process stopped without writing more. See 'acode sessions show ${options.sessionId}'`, ExitCode.locked, 'ACODE-RESUME-003');
    }
    const full = diskFull(error);
    if (full) {
      // A full disk is no fault of the session: it pauses, resumable once there is space again.
      const message = `disk full writing ${full.path ?? 'a session file'}; free space, then ${options.saved ? `acode resume ${options.sessionId}` : 'run the workflow again'}`;
      options.journal.pauseFromLog?.('disk_full', message);
      throw new AcodeError(message, ExitCode.failure);
    }
    throw error;
  } finally {
    options.lease?.lock.release();
    options.close?.();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await screen?.close();
  }

  if (options.json) ctx.stdout.write(`${JSON.stringify(summary)}\n`);
  if (!useInk) ctx.stderr.write(`${closingLine(ctx, summary, options.saved)}\n`);
  return exitCodeFor(summary, executor.cancelled);
}
