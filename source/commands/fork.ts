import { existsSync, readFileSync } from 'node:fs';
import { sha256 } from '../engine/blob-store.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { EngineEventBody } from '../engine/events.js';
import { initialProgress, replayEvents } from '../engine/session-progress.js';
import { autoResumePolicy, loadResumeConfig } from '../config/resume-config.js';
import { createProvider } from '../providers/create-provider.js';
import { recordedArtifactTarget } from '../engine/artifacts.js';
import { openStore, type CommandContext } from './command-context.js';
import { guardJournal, leaseSession } from './session-lease.js';
import { runSession } from './run-session.js';
import { chainSteps } from '../spec/chain-steps.js';

export interface ForkFlags {
  /** 1-based step to run again from; steps before it are reused. Default: after the last completed step. */
  fromStep?: number;
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
  const steps = chainSteps(spec).length;
  const replayed = replayEvents(source.events(), steps);
  const done = replayed.results.filter(Boolean);
  // The fork redoes its source's work, so the files its source wrote are its own to overwrite —
  // as long as they still hold what it wrote: a file a person edited since needs --force like any other.
  const unchanged = (path: string, hash: string | null) => !existsSync(path) || sha256(readFileSync(path)) === hash;
  const wrote = Object.entries(replayed.files).filter(([path, seen]) => seen.op === 'write' && unchanged(path, seen.hash)).map(([path]) => path);
  const inherited = [...new Set([...(source.record.artifacts_inherited ?? []), ...wrote])];
  // Reuse only an unbroken run of completed steps from the start: later steps depend on earlier ones.
  let completed = 0;
  while (completed < done.length && done[completed]?.index === completed) completed++;
  const reuse = flags.fromStep === undefined ? completed : flags.fromStep - 1;
  if (!Number.isInteger(reuse) || reuse < 0 || reuse > completed) {
    throw new AcodeError(`--from-step must be between 1 and ${completed + 1}: session ${source.record.session_id} has ${completed} completed step${completed === 1 ? '' : 's'}`, ExitCode.usage);
  }

  const provider = createProvider(spec, ctx.env);
  const { session_id: from, schemaVersion: _v, created_at: _c, updated_at: _u, checkpoint: _cp, ...fields } = source.record;
  const handle = store.create({ ...fields, ...(fields.artifacts_dir === undefined ? {} : { artifacts_inherited: inherited }), specText: source.specText(), spec, stepsTotal: steps });
  const lease = leaseSession(handle, config.lock_timeout_seconds);
  const journal = handle.openJournal();
  const preamble: EngineEventBody[] = [
    { type: 'session_forked', from_session: from, steps_reused: reuse },
    ...done.slice(0, reuse).map((r): EngineEventBody => ({ type: 'step_reused', step: r.index, agent: r.agent, response: r.response, from_session: from })),
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
