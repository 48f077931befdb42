import { relative } from 'node:path';
import { stepTitle } from '../engine/step-id.js';
import { ExitCode } from '../errors/acode-error.js';
import { describePlan } from '../engine/continuation-plan.js';
import { describeRecovery, type InProgressStrategy, type PendingWriteState } from '../engine/write-recovery.js';
import { settleStrategy, type SettledStrategy } from '../session/in-progress-strategy.js';
import { claimResume, prepareResume, requireEnvironmentChecked, type ResumeCandidate } from '../session/prepare-resume.js';
import { approvalsFrom, type ApprovalFlags } from './approval-flags.js';
import { changeLines, decideOnChanges, viewChanges, type OnChange } from './changed-files.js';
import { openRepository, type CommandContext } from './command-context.js';
import { importInk } from './import-ink.js';
import { runSession } from './run-session.js';

export interface ResumeFlags {
  json: boolean;
  /** `--stream`: without a terminal, each step's answer on stdout as it arrives. */
  stream?: boolean;
  dryRun: boolean;
  /** --force: the artifacts may overwrite files this session did not write. */
  force?: boolean;
  /** --yes: continue past changed files. */
  yes?: boolean;
  onChange?: OnChange;
  strategy?: InProgressStrategy;
  /** false for --no-auto-resume; undefined: resume.auto_resume decides. */
  autoResume?: boolean;
  approval?: ApprovalFlags;
}

function writeLines(writes: readonly PendingWriteState[], strategy: SettledStrategy, cwd: string): string[] {
  return writes.map((w) => `write to ${relative(cwd, w.path) || w.path} (${stepTitle(w.step)}): ${describeRecovery(w, strategy)}`);
}

function printDryRun(ctx: CommandContext, candidate: ResumeCandidate, json: boolean, strategy: SettledStrategy): void {
  const { session, plan, environment, specChange } = candidate;
  const record = session.record;
  const views = viewChanges(environment.changes, record.cwd);
  if (json) {
    ctx.stdout.write(
      `${JSON.stringify({
        session_id: record.session_id,
        workflow_name: record.workflow_name,
        ...plan,
        pending_writes: candidate.pendingWrites.map((w) => ({ path: w.path, step: w.step, state: w.state, action: describeRecovery(w, strategy) })),
        changed_files: views.map((v) => ({ path: v.path, kind: v.kind, size: v.size, last_seen: v.lastSeen })),
        spec_changed: Boolean(specChange),
      })}\n`,
    );
    return;
  }
  const lines = [
    ...describePlan(plan),
    ...writeLines(candidate.pendingWrites, strategy, record.cwd),
    views.length ? `changed files:   ${views.length} (resume asks before going on)` : 'changed files:   none',
    ...changeLines(views),
    ...(specChange ? [`note:            ${relative(record.cwd, specChange.path) || specChange.path} changed on disk; the session keeps running its snapshot`] : []),
  ];
  ctx.stdout.write(`dry run: would resume session ${record.session_id} (${record.workflow_name}); nothing was run or changed\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
}

/** Loads the changed-file prompt (React and Ink) only when a person has to answer it. */
async function askOnTerminal(candidate: ResumeCandidate): Promise<'continue' | 'abort'> {
  const [{ askAboutChanges }, { diffLines }] = await Promise.all([importInk(() => import('../ui/changes/changes-screen.js')), import('./file-diff.js')]);
  const { session, environment, blobs } = candidate;
  return askAboutChanges({
    sessionId: session.record.session_id,
    changes: viewChanges(environment.changes, session.record.cwd),
    loadDiff: (index) => diffLines(environment.changes[index]!, blobs, session.record.cwd),
  });
}

/** The question a `prompt` strategy asks about torn writes, on a terminal only. */
function keepTornOnTerminal(ctx: CommandContext, cwd: string): ((torn: PendingWriteState[]) => Promise<boolean>) | undefined {
  if (!ctx.interactive) return undefined;
  return (torn) => ctx.confirm(`A write was torn when the session stopped (${torn.map((w) => relative(cwd, w.path)).join(', ')}). Keep it for the retry to overwrite instead of rolling it back? [y/N] `);
}

/** `acode resume [<id>]`: replays the session's log, checks the environment, settles torn writes, continues. */
export async function resumeCommand(ctx: CommandContext, id: string | undefined, flags: ResumeFlags): Promise<ExitCode> {
  approvalsFrom(flags.approval ?? {}); // contradicting answers are refused before anything is read
  const repository = openRepository(ctx);
  const candidate = await prepareResume(repository, { id, cwd: ctx.cwd, env: ctx.env, strategy: flags.strategy });
  // The answer goes to the question the session waited on first, as the plan lists it.
  const approvals = approvalsFrom(flags.approval ?? {}, candidate.progress.awaiting[0]);
  const { session, config, environment, specChange } = candidate;
  const record = session.record;
  requireEnvironmentChecked(candidate);
  if (flags.dryRun) {
    // What the resume would do with no one to ask: the same strategy it resolves.
    printDryRun(ctx, candidate, flags.json, await settleStrategy(candidate.strategy, candidate.pendingWrites));
    return ExitCode.ok;
  }
  await session.requireWritable(`resume session ${record.session_id}`);
  if (specChange) ctx.stderr.write(`acode: note: ${specChange.path} changed since the session started; the session keeps running its snapshot\n`);
  const views = viewChanges(environment.changes, record.cwd);
  if (views.length) {
    const onChange: OnChange = flags.yes ? 'continue' : (flags.onChange ?? (config.changed_files_action === 'prompt' && !ctx.interactive ? 'abort' : config.changed_files_action));
    await decideOnChanges(ctx, record.session_id, views, { onChange, ask: () => askOnTerminal(candidate) });
  }
  const strategy = await settleStrategy(candidate.strategy, candidate.pendingWrites, keepTornOnTerminal(ctx, record.cwd));
  const prepared = await claimResume(repository, candidate, { strategy, env: ctx.env, force: flags.force, autoResume: flags.autoResume });
  const announce = () => {
    const { plan, pendingWrites, leftovers } = prepared.intro;
    const cleaned = leftovers.length ? [`removed ${leftovers.length} temp file${leftovers.length === 1 ? '' : 's'} the stopped run left (${leftovers.map((p) => relative(record.cwd, p) || p).join(', ')})`] : [];
    ctx.stderr.write(`acode: resuming session ${record.session_id}\n${[...describePlan(plan), ...writeLines(pendingWrites, strategy, record.cwd), ...cleaned].map((l) => `  ${l}`).join('\n')}\n`);
  };
  return runSession(ctx, prepared, { json: flags.json, approvals, announce, stream: flags.stream });
}
