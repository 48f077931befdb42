import { existsSync, statSync } from 'node:fs';
import { patternFor } from '../engine/patterns/pattern-for.js';
import { stepTitle } from '../engine/step-id.js';
import { join } from 'node:path';
import { loadResumeConfig, type ResumeConfig } from '../config/resume-config.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { planContinuation, type ContinuationPlan } from '../engine/continuation-plan.js';
import { checkFiles, checkSpecFile, type EnvironmentReport, type FileChange } from '../engine/environment-check.js';
import { terminalStatuses, type SessionStatus } from '../engine/events.js';
import { highestEpoch } from '../engine/epoch-fence.js';
import { recoverProgress, ReplayError } from '../engine/replay-check.js';
import type { SessionProgress } from '../engine/session-progress.js';
import { inspectPendingWrites, type PendingWriteState } from '../engine/write-recovery.js';
import { recordedArtifactTarget } from '../engine/artifacts.js';
import { extraRoots } from '../engine/tools/agent-tools.js';
import { confinement, type Confinement } from '../engine/tools/beneath.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { createProvider } from '../providers/create-provider.js';
import { heldByLiveProcess, isResumable } from '../store/resumability.js';
import type { SessionRecord } from '../store/session-record.js';
import type { SessionHandle, SessionStore } from '../store/session-store.js';
import { openStore, type CommandContext } from './command-context.js';
import { describeOwner } from './session-lease.js';

function refuseTerminal(status: SessionStatus, record: SessionRecord): void {
  if (!terminalStatuses.includes(status)) return;
  throw new AcodeError(
    `session ${record.session_id} is ${status}: there is nothing to resume. Start over from its finished steps with 'acode fork ${record.session_id}', or run the workflow again with 'acode run ${record.spec_path}'`,
    ExitCode.terminalState,
    'ACODE-RESUME-002',
  );
}

/**
 * Once the lock is held: the session must still be as it was prepared. Prompts can wait while
 * another process runs (or finishes) it, and resuming from the stale state would redo its work.
 */
export function confirmUnchanged(prepared: PreparedResume): void {
  const { handle, logEvents } = prepared;
  // Any append counts, fenced or not: a process that wrote since may also have touched files.
  const now = handle.events().length;
  if (now !== logEvents) {
    throw new AcodeError(
      `session ${handle.record.session_id} changed while this resume was being prepared (another process ran it: the log has ${now} events, not ${logEvents}); nothing was done. Run 'acode resume ${handle.record.session_id}' again`,
      ExitCode.locked,
      'ACODE-RESUME-003',
    );
  }
}

/** A pending write whose file someone else changed is a changed file: the person decides, nothing is rolled back. */
function editedPendingWrites(writes: readonly PendingWriteState[]): FileChange[] {
  return writes
    .filter((w) => w.state === 'changed')
    .map((w) => {
      const exists = existsSync(w.path);
      return {
        path: w.path,
        kind: !exists ? 'deleted' : w.before_hash === null ? 'created' : 'modified',
        size: exists ? statSync(w.path).size : 0,
        mtime_ms: exists ? statSync(w.path).mtimeMs : null,
        seen: { hash: w.before_hash, blob: w.before_blob, op: 'write', step: w.step, at: '' },
        hash: w.current_hash,
      };
    });
}

/** The provider/model config must still make a provider (e.g. a model_id): else the resume stops before it starts. */
function checkProvider(spec: WorkflowSpec, env: NodeJS.ProcessEnv, sessionId: string): void {
  try {
    createProvider(spec, env);
  } catch (error) {
    if (!(error instanceof AcodeError)) throw error;
    throw new AcodeError(`session ${sessionId}: its provider config is not usable here: ${error.message}`, ExitCode.environmentInvalid, 'ACODE-RESUME-004');
  }
}

/**
 * Every snapshot the resume will read — the before/after content of writes under way (to tell an
 * applied write from a torn one and roll it back), the unfinished step's saved conversation, the
 * last-seen content of changed files (to show their diff) — must be there before the resume takes
 * the lock or writes an event: found missing halfway, the resume would stop with the log changed.
 */
function requireSnapshots(handle: SessionHandle, progress: SessionProgress, changes: readonly FileChange[]): void {
  const needed: [hash: string, what: string][] = [];
  for (const write of Object.values(progress.pending_writes)) {
    needed.push([write.after_blob, `the content ${stepTitle(write.step)} was writing to ${write.path}`]);
    if (write.before_blob) needed.push([write.before_blob, `the content ${write.path} had before ${stepTitle(write.step)} wrote it`]);
  }
  for (const [step, blob] of Object.entries(progress.conversations)) {
    if (!progress.completed[step]) needed.push([blob, `the saved conversation of ${stepTitle(step)}`]);
  }
  for (const change of changes) if (change.seen.blob) needed.push([change.seen.blob, `the content of ${change.path} when the session last saw it`]);
  const blobs = handle.blobs();
  const missing = needed.find(([hash]) => !blobs.has(hash));
  if (!missing) return;
  const id = handle.record.session_id;
  throw new AcodeError(
    `session ${id} cannot be resumed: its snapshot of ${missing[1]} (${blobs.pathOf(missing[0])}) is missing; nothing was changed. Restore ${join(handle.dir, 'blobs')} from a backup, or start a new session from its completed steps with 'acode fork ${id}'`,
    ExitCode.failure,
    'ACODE-RESUME-005',
  );
}

/**
 * The session to resume; looking it up never writes (not even the index), so a refusal leaves no
 * trace. When every candidate is driven by a live process, that is the answer (exit 16), naming them.
 */
function findSession(store: SessionStore, id: string | undefined, config: ResumeConfig): SessionHandle {
  if (id) return store.open(id);
  const timeoutMs = config.lock_timeout_seconds * 1000;
  const held: string[] = [];
  for (const row of store.list({ write: false })) {
    const lock = store.lockState(row.session_id, timeoutMs);
    if (isResumable(row, lock)) return store.open(row.session_id);
    if (heldByLiveProcess(row, lock)) held.push(`session ${row.session_id} by ${describeOwner(lock.owner)}`);
  }
  if (held.length > 0) {
    const shown = held.length > 3 ? `${held.slice(0, 3).join('; ')}; and ${held.length - 3} more` : held.join('; ');
    throw new AcodeError(
      `every resumable session in ${store.home} is in use by a running process: ${shown}. Wait for it to finish or stop it there with Ctrl+C; if that process is gone, 'acode sessions unlock <id>' removes its lock`,
      ExitCode.locked,
      'ACODE-RESUME-003',
    );
  }
  throw new AcodeError(`no resumable session in ${store.home}; start one with 'acode run <spec.yaml>' or list them with 'acode sessions list'`, ExitCode.noResumableSession, 'ACODE-RESUME-001');
}

export interface PreparedResume {
  handle: SessionHandle;
  spec: WorkflowSpec;
  progress: SessionProgress;
  plan: ContinuationPlan;
  config: ResumeConfig;
  /** Events in the log as read (fenced ones included): a change before the lock is taken aborts the resume. */
  logEvents: number;
  /** The highest lock epoch in the log: the resume's own epoch goes above it. */
  logEpoch: number;
  /** The folders the session may write in, checked by real path (rollbacks go through them). */
  where: Confinement;
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
  // The checkpoint's status alone does not refuse: a holder that had lost the lock may have written it.
  const events = handle.events();
  let progress: SessionProgress;
  try {
    progress = recoverProgress(events, record.checkpoint);
  } catch (error) {
    if (!(error instanceof ReplayError)) throw error;
    const conflict = error.kind === 'idempotency_conflict';
    throw new AcodeError(
      `session ${record.session_id} is ${conflict ? 'inconsistent' : 'non-deterministic'} and was not resumed: ${error.message}. Inspect it with 'acode sessions history ${record.session_id}'; 'acode fork ${record.session_id}' starts a clean session from its completed steps`,
      ExitCode.failure,
      conflict ? 'ACODE-RESUME-007' : 'ACODE-RESUME-006',
    );
  }
  // The log can be one event ahead of the checkpoint: a session that completed or failed just
  // before a crash is terminal even if its checkpoint still says running.
  refuseTerminal(progress.status, record);
  const spec = handle.spec();
  if (config.validate_environment && !existsSync(record.cwd)) {
    throw new AcodeError(`session ${record.session_id} ran in ${record.cwd}, which no longer exists; restore the directory, then resume`, ExitCode.environmentInvalid, 'ACODE-RESUME-004');
  }
  const validate = config.validate_environment;
  if (validate) checkProvider(spec, ctx.env, record.session_id);
  const environment: EnvironmentReport = validate ? checkFiles(progress, config.validation_timeout_seconds * 1000) : { changes: [], checked: 0, timed_out: false };
  requireSnapshots(handle, progress, environment.changes);
  // Where the session's writes may land, by real path: the working directory, env.mounts, the artifacts folder.
  const where = confinement(record.cwd, [...extraRoots(spec), recordedArtifactTarget(record).dir]);
  const pendingWrites = inspectPendingWrites(progress, handle.blobs(), where);
  return {
    handle,
    spec,
    progress,
    plan: planContinuation(patternFor(spec), progress, record.checkpoint),
    config,
    logEvents: events.length,
    logEpoch: highestEpoch(events),
    where,
    pendingWrites,
    environment: { ...environment, changes: [...environment.changes, ...editedPendingWrites(pendingWrites)] },
    specChange: validate ? checkSpecFile(record.spec_path, record.spec_hash, handle.specText()) : undefined,
  };
}
