import type { Variables } from '../engine/template-context.js';
import { requireEnforceableCap } from './cost-cap.js';
import { missingVariablesError, restoreVariables } from './withheld-variables.js';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { autoResumePolicy, loadResumeConfig } from '../config/resume-config.js';
import { recordedArtifactTarget } from '../engine/artifacts.js';
import { sha256 } from '../engine/blob-store.js';
import type { EngineEvent, EngineEventBody } from '../engine/events.js';
import { initialProgress, replayEvents, type SessionProgress } from '../engine/session-progress.js';
import { planFork } from '../engine/fork-plan.js';
import { reusableSteps, type ReusableSteps } from '../engine/step-input-key.js';
import { previewFork, type ForkPreviewStep } from '../engine/fork-preview.js';
import { stepName } from '../engine/step-names.js';
import { loadSpecFile } from '../spec/load-spec.js';
import { hashText } from '../spec/hash.js';
import { patternFor } from '../engine/patterns/pattern-for.js';
import type { StepId } from '../engine/step-id.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { readyExecutors } from '../engine/tools/http-executors.js';
import { createProvider } from '../providers/create-provider.js';
import { takeLease } from './lease.js';
import { refuseUnfindableFolders } from './unfindable-folders.js';
import { heldRun, releaseHeld, type ForkIntro, type PreparedRun } from './prepared-run.js';
import type { LeasedJournal, SessionRecord, SessionRepository } from './repository.js';

export interface ForkRequest {
  /** The source session: id or unique prefix. */
  id: string;
  /** The step to run again from: a chain's 1-based number, or a step id; what does not depend on it is reused. Default: the first unfinished step. */
  fromStep?: string;
  /** `--spec`: an edited spec to run instead of the source's snapshot (a path, relative to `cwd`). */
  specPath?: string;
  /** `--name`: the fork's own name (a name belongs to one session: the source's is not carried over). */
  name?: string;
  /** `--var`: variables the source stored without their value, given back (withheld-variables.ts). */
  vars?: Variables;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Engine-shape: the events that put the reused steps into the fork's log, as if it had run them. */
function reuseEvents(reused: readonly StepId[], progress: SessionProgress, from: string, byInput?: readonly StepId[]): EngineEventBody[] {
  return [
    { type: 'session_forked', from_session: from, steps_reused: reused.length, ...(byInput ? { reuse_by_input: [...byInput] } : {}) },
    ...reused.map((id): EngineEventBody => {
      const done = progress.completed[id]!;
      return { type: 'step_reused', step: id, agent: done.agent, response: done.response, from_session: from, ...(done.cut ? { cut: true as const } : {}) };
    }),
  ];
}

/**
 * The fork redoes its source's work, so the files its source wrote are its own to overwrite — as
 * long as they still hold what it wrote: a file a person edited since needs --force like any other.
 */
function inheritedArtifacts(progress: SessionProgress, record: SessionRecord): string[] {
  const unchanged = (path: string, hash: string | null) => !existsSync(path) || sha256(readFileSync(path)) === hash;
  const wrote = Object.entries(progress.files)
    .filter(([path, seen]) => seen.op === 'write' && unchanged(path, seen.hash))
    .map(([path]) => path);
  return [...new Set([...(record.artifacts_inherited ?? []), ...wrote])];
}

/**
 * `acode fork <id> [--from-step N]`: a new session with the source's spec snapshot, variables and
 * working directory, reusing its completed steps before N — the way out of a terminal state. The
 * new session is created and leased; on any failure after that, the lease is let go.
 */
export async function forkSession(repository: SessionRepository, request: ForkRequest): Promise<PreparedRun<ForkIntro>> {
  const config = loadResumeConfig(repository.home, request.cwd);
  const { source, from, variables, replayed, plan, edited, spec, pattern, steps, reusable } = await forkSource(repository, request, true);
  // Refused before anything is created when the spec's spending cap cannot be counted.
  await requireEnforceableCap(spec);
  const reuse = reusable ? reusable.reusable.size : plan.reuse.length;

  const provider = createProvider(spec, request.env);
  const { session_id: _id, schemaVersion: _v, created_at: _c, updated_at: _u, checkpoint: _cp, name: _name, first_input: firstInput, ...fields } = source.record;
  // The source's first input is the fork's when it runs the same spec; an edited one's is journaled as its first step starts.
  const inherited = { ...(fields.artifacts_dir === undefined ? {} : { artifacts_inherited: inheritedArtifacts(replayed, source.record) }), ...(firstInput === undefined || edited ? {} : { first_input: firstInput }) };
  const session = await repository.create({ ...fields, ...inherited, ...(request.name === undefined ? {} : { name: request.name }), ...(edited ? { spec_path: resolve(edited.file), spec_hash: hashText(edited.text) } : {}), specText: edited?.text ?? (await source.specText()), spec, stepsTotal: steps });
  const record = session.record;
  const lease = await takeLease(repository, record.session_id, config.lock_timeout_seconds);
  let journal: LeasedJournal | undefined;
  try {
    journal = session.openJournal();
    return heldRun(
      {
        intro: { kind: 'fork' as const, from, reused: reuse, ...(request.specPath === undefined ? {} : { edited: request.specPath }) },
        sessionId: record.session_id,
        ...(request.name === undefined ? {} : { name: request.name }),
        spec,
        pattern,
        variables,
        provider,
        executors: readyExecutors(spec, request.env),
        blobs: session.blobs(),
        progress: initialProgress(steps),
        cwd: record.cwd,
        artifacts: { ...recordedArtifactTarget(record), owners: repository.artifactOwners() },
        autoResume: autoResumePolicy(config),
        preamble: reuseEvents(reusable ? [] : plan.reuse, replayed, from, reusable ? [...reusable.reusable.keys()] : undefined),
        ...(reusable ? { reusable: reusable.reusable } : {}),
      },
      lease,
      journal,
    );
  } catch (error) {
    releaseHeld(lease, journal);
    throw error;
  }
}

/** The source of a fork and what the fork would run: read and checked, nothing written. */
async function forkSource(repository: SessionRepository, request: ForkRequest, writing: boolean) {
  const source = await repository.open(request.id);
  const from = source.record.session_id;
  refuseUnfindableFolders(source.record, 'fork');
  const { variables, missing } = restoreVariables(source.record.variables, request.vars ?? {}, from, 'fork');
  if (missing.length) throw missingVariablesError(missing, from, 'fork');
  if (writing) await repository.requireWritable(`fork session ${from}`);
  const sourceSpec = await source.spec();
  const sourcePattern = patternFor(sourceSpec);
  const events = await source.events();
  const replayed = replayEvents(events, sourcePattern.shape(initialProgress(0)).length);
  const plan = planFork(sourcePattern, replayed, request.fromStep, from);
  if (!plan.ok) throw new AcodeError(plan.message, ExitCode.usage);
  // --spec: checked like a new run's spec (exit 2, nothing created), with the variables the session has.
  const edited = request.specPath === undefined ? undefined : loadSpecFile(resolve(request.cwd, request.specPath), { variables: Object.keys(variables) });
  const spec = edited?.spec ?? sourceSpec;
  const pattern = edited ? patternFor(spec) : sourcePattern;
  const steps = pattern.shape(initialProgress(0)).length;
  // An edited spec's steps are reused as the run reaches them, by what they ask; otherwise the plan's are copied in first.
  const candidates = request.fromStep === undefined ? Object.keys(replayed.completed) : plan.reuse;
  const reusable = edited ? reusableSteps(events, replayed, sourceSpec, candidates, from) : undefined;
  return { source, from, variables, replayed, plan, edited, spec, pattern, steps, reusable };
}

/**
 * `acode fork <id> --dry-run`: which of the source's steps the fork would reuse and why each other one
 * would run — with --spec, found by walking the edited spec as the run would (engine/fork-preview.ts).
 * Nothing is created, run or changed.
 */
export async function previewForkSession(repository: SessionRepository, request: ForkRequest): Promise<{ from: string; steps: ForkPreviewStep[] }> {
  const { from, variables, replayed, plan, spec, pattern, reusable } = await forkSource(repository, request, false);
  if (reusable) return { from, steps: previewFork(pattern, spec, variables, reusable.reusable, reusable.unusable, from) };
  const reused = new Set(plan.reuse);
  const steps = pattern.shape(replayed).map((node): ForkPreviewStep => ({
    step: stepName(pattern.type, node.id),
    title: node.title,
    agent: node.label,
    reused: reused.has(node.id),
    why: reused.has(node.id) ? 'completed, and does not depend on the step the fork runs again' : replayed.completed[node.id] ? 'depends on the step the fork runs again' : 'not completed',
  }));
  return { from, steps };
}

/**
 * The steps a resumed `fork --spec` may still take from its source, as the fork first could: those
 * its log's session_forked names, read again from the source session. A source deleted since leaves
 * none (the steps run).
 */
export async function reusableAgain(repository: SessionRepository, events: readonly EngineEvent[]): Promise<ReusableSteps | undefined> {
  const forked = events.find((event) => event.type === 'session_forked');
  if (forked?.type !== 'session_forked' || !Array.isArray(forked.reuse_by_input) || forked.reuse_by_input.length === 0) return undefined;
  let source;
  try {
    source = await repository.open(forked.from_session);
  } catch (error) {
    if (error instanceof AcodeError) return undefined;
    throw error;
  }
  const spec = await source.spec();
  const sourceEvents = await source.events();
  const replayed = replayEvents(sourceEvents, patternFor(spec).shape(initialProgress(0)).length);
  return reusableSteps(sourceEvents, replayed, spec, forked.reuse_by_input, forked.from_session).reusable;
}
