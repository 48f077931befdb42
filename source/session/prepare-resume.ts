import type { Variables } from '../engine/template-context.js';
import { requireEnforceableCap } from './cost-cap.js';
import { raiseLimits } from '../spec/raised-limits.js';
import { existsSync, statSync } from 'node:fs';
import type { Pattern } from '../engine/pattern.js';
import { stepCalled } from '../engine/step-names.js';
import { patternFor } from '../engine/patterns/pattern-for.js';
import { autoResumePolicy, loadResumeConfig, type ResumeConfig } from '../config/resume-config.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { recordedArtifactTarget } from '../engine/artifacts.js';
import { planContinuation, type ContinuationPlan } from '../engine/continuation-plan.js';
import { checkFiles, checkSpecFile, type EnvironmentReport, type FileChange } from '../engine/environment-check.js';
import { highestEpoch } from '../engine/epoch-fence.js';
import { effectOutcome, settleUncertainCalls, uncertainCalls, type UncertainCall } from '../engine/effect-recovery.js';
import { terminalStatuses, type EffectRecovery, type EngineEventBody, type SessionStatus } from '../engine/events.js';
import { recoverProgress, ReplayError } from '../engine/replay-check.js';
import type { SessionProgress } from '../engine/session-progress.js';
import { extraRoots } from '../engine/tools/agent-tools.js';
import { confinement, type Confinement } from '../engine/tools/beneath.js';
import { inspectPendingWrites, settlePendingWrites, snapshotNow, writeFolders, type InProgressStrategy, type PendingWriteState } from '../engine/write-recovery.js';
import { createProvider } from '../providers/create-provider.js';
import { readyExecutors } from '../engine/tools/http-executors.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { heldByLiveProcess, isResumable } from '../store/resumability.js';
import { resolveInProgressStrategy, type SettledStrategy } from './in-progress-strategy.js';
import { takeLease } from './lease.js';
import { describeOwner } from './lock-owner.js';
import { refuseUnfindableFolders } from './unfindable-folders.js';
import { agentCliChanges } from './agent-cli-changes.js';
import { sessionAgentCli } from './agent-cli-port.js';
import { heldRun, releaseHeld, type PreparedRun, type ResumeIntro } from './prepared-run.js';
import type { SessionBlobs, LeasedJournal, SessionRecord, SessionRepository, StoredSession } from './repository.js';
import { reusableAgain } from './fork.js';
import type { ReusableSteps } from '../engine/step-input-key.js';

function refuseTerminal(status: SessionStatus, record: SessionRecord): void {
  if (!terminalStatuses.includes(status)) return;
  throw new AcodeError(
    `session ${record.session_id} is ${status}: there is nothing to resume. Start over from its finished steps with 'acode fork ${record.session_id}', or run the workflow again with 'acode run ${record.spec_path}'`,
    ExitCode.terminalState,
    'ACODE-RESUME-002',
  );
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
 * Engine-shape: every snapshot the resume will read — the before/after content of writes under
 * way (to tell an applied write from a torn one and roll it back), the unfinished step's saved
 * conversation and its tools' long answers, the last-seen content of changed files (to show their diff) — must be there, and
 * whole, before the resume takes the lock or writes an event: found missing or damaged halfway, the
 * resume would stop with the log changed (and a damaged conversation would be replayed to the model).
 */
function requireSnapshots(session: StoredSession, blobs: SessionBlobs, progress: SessionProgress, changes: readonly FileChange[], pattern: Pattern): void {
  const called = (id: string) => stepCalled(pattern.type, id);
  const needed: [hash: string, what: string][] = [];
  for (const write of Object.values(progress.pending_writes)) {
    needed.push([write.after_blob, `the content ${called(write.step)} was writing to ${write.path}`]);
    if (write.before_blob) needed.push([write.before_blob, `the content ${write.path} had before ${called(write.step)} wrote it`]);
  }
  for (const [step, blob] of Object.entries(progress.conversations)) {
    if (!progress.completed[step]) needed.push([blob, `the saved conversation of ${called(step)}`]);
  }
  for (const [step, outcomes] of Object.entries(progress.tool_outcomes)) {
    // A tool's whole answer, replayed to the model when the unfinished step's round runs again.
    for (const outcome of Object.values(outcomes)) if (outcome.kind === 'result' && outcome.output_blob) needed.push([outcome.output_blob, `a tool's answer in ${called(step)}`]);
  }
  for (const change of changes) if (change.seen.blob) needed.push([change.seen.blob, `the content of ${change.path} when the session last saw it`]);
  for (const [hash, what] of needed) {
    const state = blobs.state(hash);
    if (state === 'intact') continue;
    const id = session.record.session_id;
    const why = state === 'missing' ? 'is missing' : 'is damaged (its content no longer matches the sha256 it is named by)';
    throw new AcodeError(
      `session ${id} cannot be resumed: its snapshot of ${what} (${blobs.pathOf(hash)}) ${why}; nothing was changed. Restore ${blobs.location} from a backup, or start a new session from its completed steps with 'acode fork ${id}'`,
      ExitCode.failure,
      'ACODE-RESUME-005',
    );
  }
}

/**
 * The session to resume; looking it up never writes (not even the index), so a refusal leaves no
 * trace. When every candidate is driven by a live process, that is the answer (exit 16), naming them.
 */
async function findSession(repository: SessionRepository, id: string | undefined, config: ResumeConfig): Promise<StoredSession> {
  if (id) return repository.open(id);
  const timeoutMs = config.lock_timeout_seconds * 1000;
  const held: string[] = [];
  for (const row of await repository.list({ write: false })) {
    const lock = await repository.lockState(row.session_id, timeoutMs);
    if (isResumable(row, lock)) return repository.open(row.session_id);
    if (heldByLiveProcess(row, lock)) held.push(`session ${row.session_id} by ${describeOwner(lock.owner)}`);
  }
  if (held.length > 0) {
    const shown = held.length > 3 ? `${held.slice(0, 3).join('; ')}; and ${held.length - 3} more` : held.join('; ');
    throw new AcodeError(
      `every resumable session in ${repository.home} is in use by a running process: ${shown}. Wait for it to finish or stop it there with Ctrl+C; if that process is gone, 'acode sessions unlock <id>' removes its lock`,
      ExitCode.locked,
      'ACODE-RESUME-003',
    );
  }
  throw new AcodeError(`no resumable session in ${repository.home}; start one with 'acode run <spec.yaml>' or list them with 'acode sessions list'`, ExitCode.noResumableSession, 'ACODE-RESUME-001');
}

/** Everything a resume decides before it changes anything: what --dry-run shows and the resume then carries out. */
export interface ResumeCandidate {
  session: StoredSession;
  spec: WorkflowSpec;
  pattern: Pattern;
  progress: SessionProgress;
  plan: ContinuationPlan;
  config: ResumeConfig;
  /** What a write torn when the session stopped gets: --strategy, else resume.in_progress_strategy. */
  strategy: InProgressStrategy;
  blobs: SessionBlobs;
  /** Events in the log as read (fenced ones included): a change before the lock is taken aborts the resume. */
  logEvents: number;
  /** The highest lock epoch in the log: the resume's own epoch goes above it. */
  logEpoch: number;
  /** The folders the session may write in, checked by real path (rollbacks go through them). */
  where: Confinement;
  /** Writes under way when the session stopped, as they look on disk now. */
  pendingWrites: PendingWriteState[];
  /** Calls with effects outside the journal that the session stopped in (python_exec, a request that changes a server). */
  uncertainCalls: UncertainCall[];
  /** Files changed since the session last saw them (empty when validation is off). */
  environment: EnvironmentReport;
  /** The spec file on disk, when it differs from the snapshot the session runs. */
  specChange?: FileChange;
  /** A `fork --spec` session: the source's steps it may still take where their input is unchanged. */
  reusable?: ReusableSteps;
}

/**
 * What a resume asks about before it runs (the changed-file prompt, --on-change, --yes): the files
 * the session saw that changed, then its spec file where it differs from the snapshot the session
 * runs — a person who fixed a prompt in the spec and resumed got the old one, told in a note.
 */
export function changesToAsk(candidate: Pick<ResumeCandidate, 'environment' | 'specChange'>): FileChange[] {
  return candidate.specChange ? [...candidate.environment.changes, candidate.specChange] : candidate.environment.changes;
}

export interface ResumeRequest {
  /** Id or unique prefix; absent: the most recent resumable session. */
  id?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--strategy`. */
  strategy?: InProgressStrategy;
}

/**
 * Everything a resume decides before it changes anything: config, session, state, replay check,
 * environment, plan, strategy. A failure here leaves the session exactly as it was.
 */
export async function prepareResume(repository: SessionRepository, request: ResumeRequest): Promise<ResumeCandidate> {
  const config = loadResumeConfig(repository.home, request.cwd);
  const session = await findSession(repository, request.id, config);
  const record = session.record;
  // The checkpoint's status alone does not refuse: a holder that had lost the lock may have written it.
  const events = await session.events();
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
  const spec = await session.spec();
  // Said by --dry-run as by the resume; a cap set by --set is checked again once raised.
  await requireEnforceableCap(spec);
  const pattern = patternFor(spec);
  refuseUnfindableFolders(record, 'resume');
  if (config.validate_environment && !existsSync(record.cwd)) {
    throw new AcodeError(`session ${record.session_id} ran in ${record.cwd}, which no longer exists; restore the directory, then resume`, ExitCode.environmentInvalid, 'ACODE-RESUME-004');
  }
  const validate = config.validate_environment;
  if (validate) checkProvider(spec, request.env, record.session_id);
  const blobs = session.blobs();
  const checked: EnvironmentReport = validate ? checkFiles(progress, config.validation_timeout_seconds * 1000) : { changes: [], checked: 0, timed_out: false };
  const environment: EnvironmentReport = validate ? { ...checked, changes: [...checked.changes, ...agentCliChanges(progress, blobs, sessionAgentCli(request.env))] } : checked;
  requireSnapshots(session, blobs, progress, environment.changes, pattern);
  // Where the session's writes may land, by real path: the working directory, env.mounts, the artifacts folder.
  const where = confinement(record.cwd, [...extraRoots(spec), recordedArtifactTarget(record).dir]);
  const pendingWrites = inspectPendingWrites(progress, blobs, where);
  const reusable = await reusableAgain(repository, events);
  return {
    ...(reusable ? { reusable } : {}),
    session,
    spec,
    pattern,
    progress,
    plan: planContinuation(pattern, progress, record.checkpoint),
    config,
    strategy: resolveInProgressStrategy(request.strategy, config),
    blobs,
    logEvents: events.length,
    logEpoch: highestEpoch(events),
    where,
    pendingWrites,
    uncertainCalls: uncertainCalls(progress),
    environment: { ...environment, changes: [...environment.changes, ...editedPendingWrites(pendingWrites)] },
    specChange: validate ? await checkSpecChange(session) : undefined,
  };
}

async function checkSpecChange(session: StoredSession): Promise<FileChange | undefined> {
  const { spec_path, spec_hash } = session.record;
  return checkSpecFile(spec_path, spec_hash, await session.specText());
}

/** An environment check that ran out of time refuses the resume (and its dry run): its answer is unknown. */
export function requireEnvironmentChecked(candidate: ResumeCandidate): void {
  const { environment, config, progress } = candidate;
  if (!environment.timed_out) return;
  throw new AcodeError(
    `environment validation did not finish within resume.validation_timeout_seconds (${config.validation_timeout_seconds} s; ${environment.checked} of ${Object.keys(progress.files).length} files checked). Raise it, or set resume.validate_environment: false`,
    ExitCode.environmentInvalid,
    'ACODE-RESUME-004',
  );
}

/**
 * Once the lock is held: the session must still be as it was prepared. Prompts can wait while
 * another process runs (or finishes) it, and resuming from the stale state would redo its work.
 */
export async function confirmUnchanged(candidate: Pick<ResumeCandidate, 'session' | 'logEvents'>): Promise<void> {
  const { session, logEvents } = candidate;
  // Any append counts, fenced or not: a process that wrote since may also have touched files.
  const now = (await session.events()).length;
  if (now !== logEvents) {
    throw new AcodeError(
      `session ${session.record.session_id} changed while this resume was being prepared (another process ran it: the log has ${now} events, not ${logEvents}); nothing was done. Run 'acode resume ${session.record.session_id}' again`,
      ExitCode.locked,
      'ACODE-RESUME-003',
    );
  }
}

/** Engine-shape: the event that tells the log (and the views) what the resume found and will do. */
function resumePlanned(plan: ContinuationPlan): EngineEventBody {
  return {
    type: 'resume_planned',
    steps_skipped: plan.skip.length,
    in_progress: plan.in_progress.map((step) => ({ step: step.step, attempt: step.attempt, action: step.action })),
    steps_remaining: plan.remaining.length + plan.in_progress.length,
  };
}

export interface ResumeChoices {
  /** What torn writes get, settled (a `prompt` strategy answered). */
  strategy: SettledStrategy;
  /** What calls cut off when the session stopped get, settled (in-progress-strategy.ts settleUncertain); absent: what `strategy` gives them. */
  uncertain?: EffectRecovery;
  env: NodeJS.ProcessEnv;
  /** --force: the artifacts may overwrite files this session did not write. */
  force?: boolean;
  /** false for --no-auto-resume; undefined: resume.auto_resume decides. */
  autoResume?: boolean;
  /** The variables to run with, withheld ones given back (withheld-variables.ts); the stored ones by default. */
  variables?: Variables;
  /** Limits raised in the spec the session runs (`--set`, parsed by spec/raised-limits.ts). */
  limits?: Record<string, number>;
  /** The epoch of the team store's lease the resume took: the lock's epoch goes no lower. */
  remoteEpoch?: number;
  /** The team store's lease was stale and taken from this holder: the log says so, as for a lock file. */
  remoteTakeover?: { pid: number; host: string; why: string };
}

/**
 * Takes the session for the resume: its lease, then — only now that no other process of this
 * session can be mid-write — the checks and repairs that change it (accepted changes snapshotted,
 * torn writes settled, leftover temp files removed). On any failure the lease is let go.
 */
export async function claimResume(repository: SessionRepository, candidate: ResumeCandidate, choices: ResumeChoices): Promise<PreparedRun<ResumeIntro>> {
  const { session, progress, plan, config, environment, blobs, where } = candidate;
  // A limit raised (--set) is checked before anything is taken, and written once the lease is held.
  const raised = choices.limits ? raiseLimits(candidate.spec, choices.limits) : { spec: candidate.spec, changes: [] };
  const spec = raised.spec;
  const pattern = raised.changes.length ? patternFor(spec) : candidate.pattern;
  await requireEnforceableCap(spec);
  const record = session.record;
  const provider = createProvider(spec, choices.env);
  const lease = await takeLease(repository, record.session_id, config.lock_timeout_seconds, Math.max(candidate.logEpoch, (choices.remoteEpoch ?? 0) - 1));
  const { remoteTakeover } = choices;
  const takenOver: EngineEventBody[] = lease.preamble.length === 0 && remoteTakeover ? [{ type: 'lock_taken_over', previous_pid: remoteTakeover.pid, previous_host: remoteTakeover.host, why: `the team store's lease: ${remoteTakeover.why}` }] : [];
  let journal: LeasedJournal | undefined;
  try {
    await confirmUnchanged(candidate);
    if (raised.changes.length) await session.replaceSpec(spec);
    journal = session.openJournal();
    const accepted: EngineEventBody[] = environment.changes.length
      ? [{ type: 'environment_accepted', files: environment.changes.map((c) => ({ path: c.path, hash: c.hash, blob: c.hash ? snapshotNow(c.path, where, blobs) : null })) }]
      : [];
    const uncertain = choices.uncertain ?? effectOutcome(choices.strategy);
    const settled = [...settlePendingWrites(candidate.pendingWrites, choices.strategy, blobs, where, record.session_id), ...settleUncertainCalls(candidate.uncertainCalls, uncertain)];
    const leftovers = await session.removeLeftoverTempFiles(writeFolders(progress, record.cwd));
    return heldRun(
      {
        intro: { kind: 'resume' as const, plan, pendingWrites: candidate.pendingWrites, strategy: choices.strategy, uncertainCalls: candidate.uncertainCalls, uncertainOutcome: uncertain, leftovers },
        sessionId: record.session_id,
        ...(record.name === undefined ? {} : { name: record.name }),
        spec,
        pattern,
        variables: choices.variables ?? record.variables,
        provider,
        executors: readyExecutors(spec, choices.env),
        blobs,
        progress,
        cwd: record.cwd,
        // --force on a resume lets its artifacts overwrite files this session did not write (as on run).
        artifacts: { ...recordedArtifactTarget(record), owners: repository.artifactOwners(), ...(choices.force ? { force: true } : {}) },
        autoResume: autoResumePolicy(config, choices.autoResume),
        ...(candidate.reusable ? { reusable: candidate.reusable } : {}),
        preamble: [...lease.preamble, ...takenOver, ...accepted, ...settled, ...(raised.changes.length ? [{ type: 'limits_raised' as const, changes: raised.changes }] : []), resumePlanned(plan)],
      },
      lease,
      journal,
    );
  } catch (error) {
    releaseHeld(lease, journal);
    throw error;
  }
}
