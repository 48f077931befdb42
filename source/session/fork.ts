import type { Variables } from '../engine/template-context.js';
import { missingVariablesError, restoreVariables } from './withheld-variables.js';
import { existsSync, readFileSync } from 'node:fs';
import { autoResumePolicy, loadResumeConfig } from '../config/resume-config.js';
import { recordedArtifactTarget } from '../engine/artifacts.js';
import { sha256 } from '../engine/blob-store.js';
import type { EngineEventBody } from '../engine/events.js';
import { initialProgress, replayEvents, type SessionProgress } from '../engine/session-progress.js';
import { planFork } from '../engine/fork-plan.js';
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
  /** `--name`: the fork's own name (a name belongs to one session: the source's is not carried over). */
  name?: string;
  /** `--var`: variables the source stored without their value, given back (withheld-variables.ts). */
  vars?: Variables;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Engine-shape: the events that put the reused steps into the fork's log, as if it had run them. */
function reuseEvents(reused: readonly StepId[], progress: SessionProgress, from: string): EngineEventBody[] {
  return [
    { type: 'session_forked', from_session: from, steps_reused: reused.length },
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
  const source = await repository.open(request.id);
  const from = source.record.session_id;
  refuseUnfindableFolders(source.record, 'fork');
  const { variables, missing } = restoreVariables(source.record.variables, request.vars ?? {}, from, 'fork');
  if (missing.length) throw missingVariablesError(missing, from, 'fork');
  await repository.requireWritable(`fork session ${from}`);
  const spec = await source.spec();
  const pattern = patternFor(spec);
  const steps = pattern.shape(initialProgress(0)).length;
  const replayed = replayEvents(await source.events(), steps);
  const plan = planFork(pattern, replayed, request.fromStep, from);
  if (!plan.ok) throw new AcodeError(plan.message, ExitCode.usage);
  const reuse = plan.reuse.length;

  const provider = createProvider(spec, request.env);
  const { session_id: _id, schemaVersion: _v, created_at: _c, updated_at: _u, checkpoint: _cp, name: _name, ...fields } = source.record;
  const inherited = fields.artifacts_dir === undefined ? {} : { artifacts_inherited: inheritedArtifacts(replayed, source.record) };
  const session = await repository.create({ ...fields, ...inherited, ...(request.name === undefined ? {} : { name: request.name }), specText: await source.specText(), spec, stepsTotal: steps });
  const record = session.record;
  const lease = await takeLease(repository, record.session_id, config.lock_timeout_seconds);
  let journal: LeasedJournal | undefined;
  try {
    journal = session.openJournal();
    return heldRun(
      {
        intro: { kind: 'fork' as const, from, reused: reuse },
        sessionId: record.session_id,
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
        preamble: reuseEvents(plan.reuse, replayed, from),
      },
      lease,
      journal,
    );
  } catch (error) {
    releaseHeld(lease, journal);
    throw error;
  }
}
