import { existsSync, readFileSync } from 'node:fs';
import { sha256 } from '../engine/blob-store.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { EngineEventBody } from '../engine/events.js';
import { initialProgress, replayEvents } from '../engine/session-progress.js';
import { planFork } from '../engine/fork-plan.js';
import { patternFor } from '../engine/patterns/pattern-for.js';
import { autoResumePolicy, loadResumeConfig } from '../config/resume-config.js';
import { createProvider } from '../providers/create-provider.js';
import { recordedArtifactTarget } from '../engine/artifacts.js';
import { openStore, type CommandContext } from './command-context.js';
import { guardJournal, leaseSession } from './session-lease.js';
import { runSession } from './run-session.js';

export interface ForkFlags {
  /** The step to run again from: a chain's 1-based number, or a step id; what does not depend on it is reused. Default: the first unfinished step. */
  fromStep?: string;
  json: boolean;
}

/**
 * `acode fork <id> [--from-step N]`: a new session with the same spec snapshot, variables and working
 * directory, reusing the source's completed steps before N — the way out of a terminal state.
 */
export async function forkCommand(ctx: CommandContext, id: string, flags: ForkFlags): Promise<ExitCode> {
  const store = openStore(ctx);
  const config = loadResumeConfig(store.home, ctx.cwd);
  const source = store.open(id);
  store.requireWritable(`fork session ${source.record.session_id}`);
  const spec = source.spec();
  const pattern = patternFor(spec);
  const replayed = replayEvents(source.events(), pattern.shape(initialProgress(0)).length);
  // The fork redoes its source's work, so the files its source wrote are its own to overwrite —
  // as long as they still hold what it wrote: a file a person edited since needs --force like any other.
  const unchanged = (path: string, hash: string | null) => !existsSync(path) || sha256(readFileSync(path)) === hash;
  const wrote = Object.entries(replayed.files).filter(([path, seen]) => seen.op === 'write' && unchanged(path, seen.hash)).map(([path]) => path);
  const inherited = [...new Set([...(source.record.artifacts_inherited ?? []), ...wrote])];
  const plan = planFork(pattern, replayed, flags.fromStep, source.record.session_id);
  if (!plan.ok) throw new AcodeError(plan.message, ExitCode.usage);
  const reuse = plan.reuse.length;
  const steps = pattern.shape(initialProgress(0)).length;

  const provider = createProvider(spec, ctx.env);
  const { session_id: from, schemaVersion: _v, created_at: _c, updated_at: _u, checkpoint: _cp, ...fields } = source.record;
  const handle = store.create({ ...fields, ...(fields.artifacts_dir === undefined ? {} : { artifacts_inherited: inherited }), specText: source.specText(), spec, stepsTotal: steps });
  const lease = leaseSession(handle, config.lock_timeout_seconds);
  const journal = handle.openJournal();
  const preamble: EngineEventBody[] = [
    { type: 'session_forked', from_session: from, steps_reused: reuse },
    ...plan.reuse.map((id): EngineEventBody => ({ type: 'step_reused', step: id, agent: replayed.completed[id]!.agent, response: replayed.completed[id]!.response, from_session: from })),
  ];
  ctx.stderr.write(`acode: forked session ${from} → ${handle.record.session_id}, reusing ${reuse} step${reuse === 1 ? '' : 's'}\n`);
  return runSession(ctx, {
    sessionId: handle.record.session_id,
    spec,
    variables: handle.record.variables,
    provider,
    journal,
    blobs: handle.blobs(),
    progress: initialProgress(steps),
    cwd: handle.record.cwd,
    artifacts: recordedArtifactTarget(handle.record),
    autoResume: autoResumePolicy(config),
    saved: true,
    json: flags.json,
    lease,
    preamble,
    onLockLost: guardJournal(journal, lease),
    close: () => journal.close(),
  });
}
