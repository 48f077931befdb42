import { relative } from 'node:path';
import { stepCalled } from '../engine/step-names.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { describePlan, type PlannedStep } from '../engine/continuation-plan.js';
import { stepName } from '../engine/step-names.js';
import { describeRecovery, type InProgressStrategy, type PendingWriteState } from '../engine/write-recovery.js';
import { settleStrategy, settleUncertain, type SettledStrategy } from '../session/in-progress-strategy.js';
import { describeEffectRecovery, type UncertainCall } from '../engine/effect-recovery.js';
import type { EffectRecovery } from '../engine/events.js';
import { sessionInUse } from '../session/lease.js';
import type { SessionRepository } from '../session/repository.js';
import { checkResumeModels, modelLine, modelProblem } from '../session/model-check.js';
import { changesToAsk, claimResume, prepareResume, requireEnvironmentChecked, type ResumeCandidate } from '../session/prepare-resume.js';
import type { ModelCheck } from '../providers/model-list.js';
import { approvalsFrom, type ApprovalFlags } from './approval-flags.js';
import { changeLines, changesAborted, decideOnChanges, viewChanges, type OnChange } from './changed-files.js';
import { openRepository, type CommandContext } from './command-context.js';
import { importInk } from './import-ink.js';
import { runSession } from './run-session.js';
import { terminalText } from '../printable-text.js';
import { missingVariablesError, restoreVariables } from '../session/withheld-variables.js';
import { parseVars } from './parse-vars.js';
import { loadResumeConfig } from '../config/resume-config.js';
import { isAcodeError } from '../errors/acode-error.js';
import { plural } from '../human-units.js';
import type { RemoteClaim } from '../store/remote/remote-claim.js';
import type { RemoteTarget } from '../store/remote/remote-url.js';
import { claimHere, isHere, pendingHere, pullForResume, resumeTarget } from './remote-resume.js';

export interface ResumeFlags {
  /** `--var k=v`: variables the session stored without their value, given back. */
  vars?: readonly string[];
  /** `--set key=value`: limits raised in the spec the session runs. */
  limits?: Record<string, number>;
  json: boolean;
  /** `--stream`: without a terminal, each step's answer on stdout as it arrives. */
  stream?: boolean;
  dryRun: boolean;
  /** --force: the artifacts may overwrite files this session did not write. */
  force?: boolean;
  /** --yes: continue past changed files and a model the provider does not offer (or cannot be asked about). */
  yes?: boolean;
  onChange?: OnChange;
  strategy?: InProgressStrategy;
  /** false for --no-auto-resume; undefined: resume.auto_resume decides. */
  autoResume?: boolean;
  approval?: ApprovalFlags;
  /** `--cwd`: the folder a session pulled from the team store runs in here. */
  cwd?: string;
}

/** How the session's pattern names a step in messages. */
/** A planned step in JSON: `step` is its name (the one form every view and flag uses), not the id the log keeps. */
const namedStep = <T extends PlannedStep>({ name, ...step }: T) => ({ ...step, step: name });

/** How the plan's lines name a step: as --step takes it (`step web/1`). */
const titles = (candidate: Pick<ResumeCandidate, 'pattern' | 'progress'>) => (id: string) => stepCalled(candidate.pattern.type, id);

function writeLines(writes: readonly PendingWriteState[], strategy: SettledStrategy, cwd: string, title: (id: string) => string): string[] {
  return writes.map((w) => `write to ${relative(cwd, w.path) || w.path} (${title(w.step)}): ${describeRecovery(w, strategy)}`);
}

/** The plan's line for each call the session stopped in: "uncertain: python_exec: 3 lines (step 2): …". */
function uncertainLines(calls: readonly UncertainCall[], outcome: EffectRecovery, title: (id: string) => string): string[] {
  return calls.map((c) => `uncertain:       ${c.what} (${title(c.step)}): ${describeEffectRecovery(outcome)}`);
}

/** The model check as validation lines: "model:           llama3.2 offered by http://localhost:11434/v1". */
function modelLines(models: readonly ModelCheck[]): string[] {
  return models.map((check) => `model:           ${modelLine(check)}`);
}

/** What the resume does about changed files: --yes goes on; else --on-change, else the setting — whose `prompt` with nobody to ask stops. */
function changeDecision(flags: ResumeFlags, configured: OnChange, interactive: boolean): OnChange {
  if (flags.yes) return 'continue';
  return flags.onChange ?? (configured === 'prompt' && !interactive ? 'abort' : configured);
}

/** The dry run's word on changed files: what the resume itself would do with them. */
const changeWords: Record<OnChange, string> = {
  prompt: 'resume asks before going on',
  continue: 'resume goes on past them',
  abort: 'resume stops before running: give --yes or --on-change continue to go on, or run it in a terminal to be asked',
};

function printDryRun(ctx: CommandContext, candidate: ResumeCandidate, json: boolean, strategy: SettledStrategy, uncertain: EffectRecovery, models: readonly ModelCheck[], missingVariables: readonly string[], onChange: OnChange, syncPending?: number): void {
  const { session, plan, specChange } = candidate;
  const record = session.record;
  const views = viewChanges(changesToAsk(candidate), record.cwd, titles(candidate));
  if (json) {
    ctx.stdout.write(
      `${JSON.stringify({
        session_id: record.session_id,
        workflow_name: record.workflow_name,
        ...plan,
        // Every step by its name, as every view shows it and --step takes it.
        skip: plan.skip.map(namedStep),
        in_progress: plan.in_progress.map(namedStep),
        remaining: plan.remaining.map(namedStep),
        pending_writes: candidate.pendingWrites.map((w) => ({ path: w.path, step: stepName(plan.pattern, w.step), state: w.state, action: describeRecovery(w, strategy) })),
        uncertain_calls: candidate.uncertainCalls.map((c) => ({ call_id: c.call_id, step: stepName(plan.pattern, c.step), tool: c.name, what: c.what, outcome: uncertain, action: describeEffectRecovery(uncertain) })),
        changed_files: views.map((v) => ({ path: v.path, kind: v.kind, size: v.size, last_seen: v.lastSeen })),
        changed_files_action: onChange,
        spec_changed: Boolean(specChange),
        missing_variables: missingVariables,
        models: models.map((c) => ({ model: c.model, host: c.host, status: c.availability.kind, ...('detail' in c.availability ? { detail: c.availability.detail } : {}) })),
        ...(syncPending === undefined ? {} : { sync_pending_events: syncPending }),
      })}\n`,
    );
    return;
  }
  const lines = [
    ...describePlan(plan),
    ...writeLines(candidate.pendingWrites, strategy, record.cwd, titles(candidate)),
    ...uncertainLines(candidate.uncertainCalls, uncertain, titles(candidate)),
    views.length ? `changed files:   ${views.length} (${changeWords[onChange]})` : 'changed files:   none',
    ...changeLines(views),
    ...modelLines(models),
    ...(syncPending === undefined ? [] : [`sync:            ${syncPending === 0 ? 'up to date ✓' : `${plural(syncPending, 'event')} pending (the resume pushes them to the team store before it runs)`}`]),
    ...(missingVariables.length ? [`variables:       ${missingVariables.join(', ')} stored without ${missingVariables.length === 1 ? 'its value' : 'their values'} (it held a key, or text shaped like one): resume with ${missingVariables.map((name) => `--var ${name}=…`).join(' ')}`] : []),
  ];
  ctx.stdout.write(terminalText(`dry run: would resume session ${record.session_id} (${record.workflow_name}); nothing was run or changed\n${lines.map((l) => `  ${l}`).join('\n')}\n`));
}

/**
 * What would stop the resume the dry run stands in for, checked in the resume's order without
 * asking or writing anything: a variable given back, the model, a writable session, changed files,
 * the lock. A question the resume would ask on a terminal (a missing model, changed files with
 * `prompt`) is not a refusal: the person answers it there.
 */
async function dryRunRefusal(ctx: CommandContext, repository: SessionRepository, candidate: ResumeCandidate, flags: ResumeFlags, models: readonly ModelCheck[], missing: readonly string[], onChange: OnChange): Promise<AcodeError | undefined> {
  const { session, config } = candidate;
  const id = session.record.session_id;
  if (missing.length) return missingVariablesError(missing, id, 'resume');
  const problem = flags.yes ? undefined : modelProblem(models, id, candidate.spec.runtime.provider === 'ollama');
  if (problem && !ctx.interactive) return problem;
  try {
    await session.requireWritable(`resume session ${id}`);
  } catch (error) {
    if (error instanceof AcodeError) return error;
    throw error;
  }
  const changed = changesToAsk(candidate).length;
  if (changed && onChange === 'abort') return changesAborted(id, changed);
  const lock = await repository.lockState(id, config.lock_timeout_seconds * 1000);
  if (lock.kind === 'held') return sessionInUse(id, lock.owner);
  return undefined;
}

/** Loads the changed-file prompt (React and Ink) only when a person has to answer it. */
async function askOnTerminal(candidate: ResumeCandidate): Promise<'continue' | 'abort'> {
  const [{ askAboutChanges }, { diffLines }] = await Promise.all([importInk(() => import('../ui/changes/changes-screen.js')), import('./file-diff.js')]);
  const { session, blobs } = candidate;
  const changes = changesToAsk(candidate);
  return askAboutChanges({
    sessionId: session.record.session_id,
    changes: viewChanges(changes, session.record.cwd, titles(candidate)),
    loadDiff: (index) => diffLines(changes[index]!, blobs, session.record.cwd),
  });
}

/**
 * The question a `prompt` strategy asks about torn writes: an Ink screen on a terminal (its Ink and
 * diff code loaded only then). Without one, no one can answer: the write is rolled back, and a plain
 * line says so.
 */
function askAboutTorn(ctx: CommandContext, candidate: ResumeCandidate): (torn: PendingWriteState[]) => Promise<SettledStrategy> {
  const { session, blobs } = candidate;
  const { session_id: id, cwd } = session.record;
  return async (torn) => {
    const shown = torn.map((w) => relative(cwd, w.path) || w.path).join(', ');
    if (!ctx.interactive) {
      ctx.stderr.write(`acode: a write was torn when the session stopped (${shown}); rolled back: resume.in_progress_strategy is prompt, but there is no terminal to ask (--strategy retry keeps it)\n`);
      return 'rollback';
    }
    const [{ askAboutTornWrites }, { tornDiffLines }] = await Promise.all([importInk(() => import('../ui/torn/torn-write-screen.js')), import('./file-diff.js')]);
    const decision = await askAboutTornWrites({
      sessionId: id,
      torn: torn.map((w) => ({ path: w.path, shown: relative(cwd, w.path) || w.path, kind: 'modified', size: w.bytes, changedAgo: null, lastSeen: `torn by ${titles(candidate)(w.step)}` })),
      loadDiff: (index) => tornDiffLines(torn[index]!, blobs, cwd),
    });
    if (decision !== 'abort') return decision;
    throw new AcodeError(
      `session ${id} was not resumed: aborted at the question about the torn write (${shown}); nothing was changed. Resume with --strategy rollback or --strategy retry to decide without being asked`,
      ExitCode.environmentInvalid,
      'ACODE-RESUME-004',
    );
  };
}

/**
 * The question a `prompt` strategy asks about calls cut off when the session stopped: run them
 * again, or take them as not done. Without a terminal no one can answer: taken as not done, and a
 * plain line says so — a second run of code or of a request that changes a server is never blind.
 */
function askAboutUncertain(ctx: CommandContext, candidate: ResumeCandidate): (calls: readonly UncertainCall[]) => Promise<EffectRecovery> {
  return async (calls) => {
    const shown = calls.map((c) => `${c.what} (${titles(candidate)(c.step)})`).join('; ');
    if (!ctx.interactive) {
      ctx.stderr.write(`acode: ${calls.length === 1 ? 'a call was' : `${calls.length} calls were`} cut off when the session stopped and may or may not have happened (${shown}); taken as not done, not run again: resume.in_progress_strategy is prompt, but there is no terminal to ask (--strategy retry runs ${calls.length === 1 ? 'it' : 'them'} again)\n`);
      return 'not_done';
    }
    const again = await ctx.confirm(`acode: cut off when the session stopped, may or may not have happened: ${shown}. Run ${calls.length === 1 ? 'it' : 'them'} again? (no: taken as not done, the model is told) [y/N] `);
    return again ? 'run_again' : 'not_done';
  };
}

/** `acode resume [<id>]`: replays the session's log, checks the environment, settles torn writes, continues. */
export async function resumeCommand(ctx: CommandContext, id: string | undefined, flags: ResumeFlags): Promise<ExitCode> {
  approvalsFrom(flags.approval ?? {}); // contradicting answers are refused before anything is read
  const repository = openRepository(ctx);
  const target = resumeTarget(ctx, repository.home);
  const here = id === undefined || (await isHere(repository, id));
  if (flags.cwd !== undefined && !target) throw new AcodeError(`--cwd chooses the folder a session pulled from the team store runs in here, and no team store is configured (see 'Team store (PostgreSQL)' in the README)`, ExitCode.usage);
  if (flags.cwd !== undefined && here) throw new AcodeError(`--cwd chooses the folder a session pulled from the team store runs in here; ${id === undefined ? 'the most recent session' : `session ${id}`} is in this home already, and runs in its own folder`, ExitCode.usage);
  if (!here && target && flags.dryRun) return dryRunPull(ctx, repository, target, id!, flags.json);
  const timeoutMs = loadResumeConfig(repository.home, ctx.cwd).lock_timeout_seconds * 1000;
  // A session this home lacks is pulled from the store, under the store's lease.
  let remote = !here && target ? await pullForResume(ctx, repository, target, id!, flags.cwd, timeoutMs) : undefined;
  let running = false;
  try {
    let candidate = await prepareResume(repository, { id: remote?.sessionId ?? id, cwd: ctx.cwd, env: ctx.env, strategy: flags.strategy });
    if (target && !remote && !flags.dryRun) {
      // A session of this home: refused if a live process of this home holds it, else its store lease taken (and pulled again if the store holds more).
      const sessionId = candidate.session.record.session_id;
      const lock = await repository.lockState(sessionId, candidate.config.lock_timeout_seconds * 1000);
      if (lock.kind === 'held') throw sessionInUse(sessionId, lock.owner);
      remote = await claimHere(ctx, repository, target, sessionId, candidate.config.lock_timeout_seconds * 1000);
      if (remote?.pulled) candidate = await prepareResume(repository, { id: sessionId, cwd: ctx.cwd, env: ctx.env, strategy: flags.strategy });
    }
    return await resumeCandidate(ctx, repository, candidate, flags, target, remote, () => (running = true));
  } finally {
    // Once the run has started, its push holds the store's lease and lets it go.
    if (!running) await remote?.release();
  }
}

/** `--dry-run` of a session this home lacks: what the resume would pull, nothing written (`--json`: one object, as every other dry run). */
async function dryRunPull(ctx: CommandContext, repository: SessionRepository, target: RemoteTarget, typed: string, json: boolean): Promise<ExitCode> {
  const { describePull } = await import('../store/remote/remote-claim.js');
  const timeoutMs = loadResumeConfig(repository.home, ctx.cwd).lock_timeout_seconds * 1000;
  try {
    const found = await describePull(target, typed, timeoutMs);
    if (json) {
      ctx.stdout.write(`${JSON.stringify({ session_id: found.id, status: found.status, pull: { store: target.shown, events: found.events, last_pushed_by: found.host } })}\n`);
      return ExitCode.ok;
    }
    ctx.stdout.write(terminalText(`dry run: session ${found.id} is not in this home; the resume would pull it from the team store ${target.shown} (${plural(found.events, 'event')}, ${found.status}, last pushed by ${found.host}), then plan it as any resume; nothing was run or changed\n`));
    return ExitCode.ok;
  } catch (error) {
    if (!isAcodeError(error)) throw error;
    throw new AcodeError(`dry run: the resume would stop here (exit ${error.exitCode}): ${error.message}`, error.exitCode, error.code);
  }
}

/** The resume of a prepared candidate: its checks, its questions, the claim, the run; `runStarts` hears when the run (and its push) takes over the store's lease. */
async function resumeCandidate(ctx: CommandContext, repository: SessionRepository, candidate: ResumeCandidate, flags: ResumeFlags, target: RemoteTarget | undefined, remote: RemoteClaim | undefined, runStarts: () => void): Promise<ExitCode> {
  // The answer goes to the question the session waited on first, as the plan lists it.
  const approvals = approvalsFrom(flags.approval ?? {}, candidate.progress.awaiting[0]);
  const { session, config } = candidate;
  const record = session.record;
  const { variables, missing } = restoreVariables(record.variables, parseVars(flags.vars ?? []), record.session_id, 'resume');
  requireEnvironmentChecked(candidate);
  const models = await checkResumeModels(candidate, ctx.env);
  if (flags.dryRun) {
    // What the resume would do with no one to ask: the same strategy it resolves.
    const onChange = changeDecision(flags, candidate.config.changed_files_action, ctx.interactive);
    const syncPending = target ? await pendingHere(repository, target, record.session_id) : undefined;
    printDryRun(ctx, candidate, flags.json, await settleStrategy(candidate.strategy, candidate.pendingWrites), await settleUncertain(candidate.strategy, candidate.uncertainCalls), models, missing, onChange, syncPending);
    // Exits as the resume would, so that `acode resume --dry-run && acode resume` works in a script.
    const refusal = await dryRunRefusal(ctx, repository, candidate, flags, models, missing, onChange);
    if (refusal) throw new AcodeError(`dry run: the resume would stop here (exit ${refusal.exitCode}): ${refusal.message}`, refusal.exitCode, refusal.code);
    return ExitCode.ok;
  }
  if (missing.length) throw missingVariablesError(missing, record.session_id, 'resume');
  const problem = flags.yes ? undefined : modelProblem(models, record.session_id, candidate.spec.runtime.provider === 'ollama');
  if (problem) {
    const unavailable = models.filter((c) => c.availability.kind === 'missing' || c.availability.kind === 'unreachable');
    // A person at the terminal may go on anyway (as --yes would); without one, the resume stops.
    if (!ctx.interactive || !(await ctx.confirm(`acode: model ${unavailable.map(modelLine).join('; ')}. Resume anyway? [y/N] `))) throw problem;
  }
  await session.requireWritable(`resume session ${record.session_id}`);
  const views = viewChanges(changesToAsk(candidate), record.cwd, titles(candidate));
  let asked = false;
  if (views.length) {
    await decideOnChanges(ctx, record.session_id, views, {
      onChange: changeDecision(flags, config.changed_files_action, ctx.interactive),
      ask: () => {
        asked = true;
        return askOnTerminal(candidate);
      },
    });
  }
  const strategy = await settleStrategy(candidate.strategy, candidate.pendingWrites, askAboutTorn(ctx, candidate));
  const uncertain = await settleUncertain(candidate.strategy, candidate.uncertainCalls, askAboutUncertain(ctx, candidate));
  const takeover = remote?.tookOverFrom;
  const prepared = await claimResume(repository, candidate, {
    strategy,
    uncertain,
    env: ctx.env,
    force: flags.force,
    autoResume: flags.autoResume,
    variables,
    limits: flags.limits,
    ...(remote ? { remoteEpoch: remote.claim.epoch } : {}),
    ...(takeover ? { remoteTakeover: { pid: takeover.holder.pid, host: takeover.holder.host, why: takeover.why } } : {}),
  });
  const announce = () => {
    const { plan, pendingWrites, leftovers } = prepared.intro;
    const cleaned = leftovers.length ? [`removed ${leftovers.length} temp file${leftovers.length === 1 ? '' : 's'} the stopped run left (${leftovers.map((p) => relative(record.cwd, p) || p).join(', ')})`] : [];
    ctx.stderr.write(`acode: resuming session ${record.session_id}\n${[...describePlan(plan), ...writeLines(pendingWrites, strategy, record.cwd, titles(candidate)), ...uncertainLines(prepared.intro.uncertainCalls, uncertain, titles(candidate)), ...modelLines(models), ...cleaned].map((l) => `  ${l}`).join('\n')}\n`);
  };
  runStarts();
  // The prompt's answer ("→ continuing: 1 changed file accepted") stays on the screen: the run view does not say it twice.
  return runSession(ctx, prepared, { json: flags.json, approvals, announce, stream: flags.stream, ...(remote ? { remote } : {}), ...(asked ? { saidAlready: ['environment_accepted'] as const } : {}) });
}
