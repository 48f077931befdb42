import { existsSync } from 'node:fs';
import { loadResumeConfig, type ResumeConfig } from '../config/resume-config.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { planContinuation, type ContinuationPlan } from '../engine/continuation-plan.js';
import { checkFiles, checkSpecFile, type EnvironmentReport, type FileChange } from '../engine/environment-check.js';
import { terminalStatuses } from '../engine/events.js';
import { recoverProgress, ReplayError } from '../engine/replay-check.js';
import type { SessionProgress } from '../engine/session-progress.js';
import { inspectPendingWrites, type PendingWriteState } from '../engine/write-recovery.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { createProvider } from '../providers/create-provider.js';
import { isResumable } from '../store/resumability.js';
import type { SessionHandle, SessionStore } from '../store/session-store.js';
import { openStore, type CommandContext } from './command-context.js';

/** The provider/model config must still make a provider (e.g. a model_id): else the resume stops before it starts. */
function checkProvider(spec: WorkflowSpec, env: NodeJS.ProcessEnv, sessionId: string): void {
  try {
    createProvider(spec, env);
  } catch (error) {
    if (!(error instanceof AcodeError)) throw error;
    throw new AcodeError(`session ${sessionId}: its provider config is not usable here: ${error.message}`, ExitCode.environmentInvalid, 'ACODE-RESUME-004');
  }
}

/** The session to resume; looking it up never writes (not even the index), so a refusal leaves no trace. */
function findSession(store: SessionStore, id: string | undefined, config: ResumeConfig): SessionHandle {
  if (id) return store.open(id);
  const timeoutMs = config.lock_timeout_seconds * 1000;
  const latest = store.list({ write: false }).find((row) => isResumable(row, store.lockState(row.session_id, timeoutMs)));
  if (!latest) {
    throw new AcodeError(`no resumable session in ${store.home}; start one with 'acode run <spec.yaml>' or list them with 'acode sessions list'`, ExitCode.noResumableSession, 'ACODE-RESUME-001');
  }
  return store.open(latest.session_id);
}

export interface PreparedResume {
  handle: SessionHandle;
  spec: WorkflowSpec;
  progress: SessionProgress;
  plan: ContinuationPlan;
  config: ResumeConfig;
  /** Writes under way when the session stopped, as they look on disk now. */
  pendingWrites: PendingWriteState[];
  /** Files changed since the session last saw them (empty when validation is off). */
  environment: EnvironmentReport;
  /** The spec file on disk, when it differs from the snapshot the session runs. */
  specChange?: FileChange;
}

/**
 * Everything a resume decides before it changes anything: config, session, state, replay check,
 * environment, plan. A failure here leaves the session exactly as it was.
 */
export function prepareResume(ctx: CommandContext, id: string | undefined): PreparedResume {
  const store = openStore(ctx);
  const config = loadResumeConfig(store.home, ctx.cwd);
  const handle = findSession(store, id, config);
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
  const validate = config.validate_environment;
  if (validate) checkProvider(spec, ctx.env, record.session_id);
  return {
    handle,
    spec,
    progress,
    plan: planContinuation(spec, progress, record.checkpoint),
    config,
    pendingWrites: inspectPendingWrites(progress),
    environment: validate ? checkFiles(progress, config.validation_timeout_seconds * 1000) : { changes: [], checked: 0, timed_out: false },
    specChange: validate ? checkSpecFile(record.spec_path, record.spec_hash, handle.specText()) : undefined,
  };
}
