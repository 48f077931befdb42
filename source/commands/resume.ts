import { existsSync } from 'node:fs';
import { loadResumeConfig, type ResumeConfig } from '../config/resume-config.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { describePlan, planContinuation, type ContinuationPlan } from '../engine/continuation-plan.js';
import { terminalStatuses } from '../engine/events.js';
import { recoverProgress, ReplayError } from '../engine/replay-check.js';
import type { SessionProgress } from '../engine/session-progress.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { createProvider } from '../providers/create-provider.js';
import { isResumable } from '../store/resumability.js';
import type { SessionHandle, SessionStore } from '../store/session-store.js';
import { openStore, type CommandContext } from './command-context.js';
import { leaseSession } from './session-lease.js';
import { runSession } from './run-session.js';

export interface ResumeFlags {
  json: boolean;
  dryRun: boolean;
}

function findSession(store: SessionStore, id: string | undefined, config: ResumeConfig, write: boolean): SessionHandle {
  if (id) return store.open(id);
  const timeoutMs = config.lock_timeout_seconds * 1000;
  const latest = store.list({ write }).find((row) => isResumable(row, store.lockState(row.session_id, timeoutMs)));
  if (!latest) {
    throw new AcodeError(`no resumable session in ${store.home}; start one with 'acode run <spec.yaml>' or list them with 'acode sessions list'`, ExitCode.noResumableSession, 'ACODE-RESUME-001');
  }
  return store.open(latest.session_id);
}

interface Prepared {
  handle: SessionHandle;
  spec: WorkflowSpec;
  progress: SessionProgress;
  plan: ContinuationPlan;
  config: ResumeConfig;
}

/**
 * Everything a resume decides before it changes anything: config, session, state, replay check,
 * environment, plan. A failure here leaves the session exactly as it was.
 */
function prepareResume(ctx: CommandContext, id: string | undefined, dryRun: boolean): Prepared {
  const store = openStore(ctx);
  const config = loadResumeConfig(store.home, ctx.cwd);
  const handle = findSession(store, id, config, !dryRun);
  const record = handle.record;
  const status = record.checkpoint.status;
  if (terminalStatuses.includes(status)) {
    throw new AcodeError(
      `session ${record.session_id} is ${status}: there is nothing to resume. Start over from its finished steps with 'acode fork ${record.session_id}', or run the workflow again with 'acode run ${record.spec_path}'`,
      ExitCode.terminalState,
      'ACODE-RESUME-002',
    );
  }
  if (config.validate_environment && !existsSync(record.cwd)) {
    throw new AcodeError(`session ${record.session_id} ran in ${record.cwd}, which no longer exists; restore the directory, then resume`, ExitCode.environmentInvalid, 'ACODE-RESUME-004');
  }
  const spec = handle.spec();
  let progress: SessionProgress;
  try {
    progress = recoverProgress(handle.events(), record.checkpoint);
  } catch (error) {
    if (!(error instanceof ReplayError)) throw error;
    const conflict = error.kind === 'idempotency_conflict';
    throw new AcodeError(
      `session ${record.session_id} is ${conflict ? 'inconsistent' : 'non-deterministic'} and was not resumed: ${error.message}. Inspect it with 'acode sessions history ${record.session_id}'; 'acode fork ${record.session_id}' starts a clean session from its completed steps`,
      ExitCode.failure,
      conflict ? 'ACODE-RESUME-007' : 'ACODE-RESUME-006',
    );
  }
  return { handle, spec, progress, plan: planContinuation(spec, progress, record.checkpoint), config };
}

/** `acode resume [<id>] [--dry-run]`: replays the session's log and continues after its last finished step. */
export async function resumeCommand(ctx: CommandContext, id: string | undefined, flags: ResumeFlags): Promise<ExitCode> {
  const { handle, spec, progress, plan, config } = prepareResume(ctx, id, flags.dryRun);
  const record = handle.record;
  const planLines = describePlan(plan);
  if (flags.dryRun) {
    if (flags.json) ctx.stdout.write(`${JSON.stringify({ session_id: record.session_id, workflow_name: record.workflow_name, ...plan })}\n`);
    else ctx.stdout.write(`dry run: would resume session ${record.session_id} (${record.workflow_name}); nothing was run or changed\n${planLines.map((l) => `  ${l}`).join('\n')}\n`);
    return ExitCode.ok;
  }

  const provider = createProvider(spec, ctx.env);
  const lease = leaseSession(handle, config.lock_timeout_seconds);
  let journal;
  try {
    journal = handle.openJournal();
  } catch (error) {
    lease.lock.release();
    throw error;
  }
  ctx.stderr.write(`acode: resuming session ${record.session_id}\n${planLines.map((l) => `  ${l}`).join('\n')}\n`);
  const sealed = journal;
  return runSession(ctx, {
    sessionId: record.session_id,
    spec,
    variables: record.variables,
    provider,
    journal,
    blobs: handle.blobs(),
    progress,
    cwd: record.cwd,
    maxAttempts: config.max_attempts,
    saved: true,
    json: flags.json,
    lease,
    onLockLost: () => sealed.seal('the session lock was taken by another process'),
    preamble: [
      ...lease.preamble,
      {
        type: 'resume_planned',
        steps_skipped: plan.skip.length,
        in_progress: plan.in_progress ? { step: plan.in_progress.step, attempt: plan.in_progress.attempt, action: plan.in_progress.action } : null,
        steps_remaining: plan.remaining.length + (plan.in_progress ? 1 : 0),
      },
    ],
    close: () => sealed.close(),
  });
}
