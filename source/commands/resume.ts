import { relative } from 'node:path';
import { stepTitle } from '../engine/step-id.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { describePlan } from '../engine/continuation-plan.js';
import type { EngineEventBody } from '../engine/events.js';
import { describeRecovery, settlePendingWrites, snapshotNow, writeFolders, type InProgressStrategy } from '../engine/write-recovery.js';
import { createProvider } from '../providers/create-provider.js';
import { recordedArtifactTarget } from '../engine/artifacts.js';
import type { CommandContext } from './command-context.js';
import { changeLines, decideOnChanges, viewChanges, type OnChange } from './changed-files.js';
import { confirmUnchanged, prepareResume, type PreparedResume } from './prepare-resume.js';
import { guardJournal, leaseSession } from './session-lease.js';
import { runSession } from './run-session.js';
import { importInk } from './import-ink.js';
import { autoResumePolicy } from '../config/resume-config.js';
import { approvalsFrom, type ApprovalFlags } from './approval-flags.js';

export interface ResumeFlags {
  json: boolean;
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

function writeLines(prepared: PreparedResume, strategy: Exclude<InProgressStrategy, 'prompt'>, cwd: string): string[] {
  return prepared.pendingWrites.map((w) => `write to ${relative(cwd, w.path) || w.path} (${stepTitle(w.step)}): ${describeRecovery(w, strategy)}`);
}

/** How torn writes are settled: --strategy, else resume.in_progress_strategy; `prompt` asks on a terminal. */
async function chooseStrategy(ctx: CommandContext, flags: ResumeFlags, prepared: PreparedResume): Promise<Exclude<InProgressStrategy, 'prompt'>> {
  const strategy = flags.strategy ?? prepared.config.in_progress_strategy;
  if (strategy !== 'prompt') return strategy;
  const torn = prepared.pendingWrites.filter((w) => w.state === 'torn');
  if (torn.length === 0 || !ctx.interactive) return 'rollback';
  const names = torn.map((w) => relative(prepared.handle.record.cwd, w.path)).join(', ');
  const keep = await ctx.confirm(`A write was torn when the session stopped (${names}). Keep it for the retry to overwrite instead of rolling it back? [y/N] `);
  return keep ? 'retry' : 'rollback';
}

function printDryRun(ctx: CommandContext, prepared: PreparedResume, flags: ResumeFlags, strategy: Exclude<InProgressStrategy, 'prompt'>): void {
  const { handle, plan, environment, specChange } = prepared;
  const record = handle.record;
  const views = viewChanges(environment.changes, record.cwd);
  if (flags.json) {
    ctx.stdout.write(
      `${JSON.stringify({
        session_id: record.session_id,
        workflow_name: record.workflow_name,
        ...plan,
        pending_writes: prepared.pendingWrites.map((w) => ({ path: w.path, step: w.step, state: w.state, action: describeRecovery(w, strategy) })),
        changed_files: views.map((v) => ({ path: v.path, kind: v.kind, size: v.size, last_seen: v.lastSeen })),
        spec_changed: Boolean(specChange),
      })}\n`,
    );
    return;
  }
  const lines = [
    ...describePlan(plan),
    ...writeLines(prepared, strategy, record.cwd),
    views.length ? `changed files:   ${views.length} (resume asks before going on)` : 'changed files:   none',
    ...changeLines(views),
    ...(specChange ? [`note:            ${relative(record.cwd, specChange.path) || specChange.path} changed on disk; the session keeps running its snapshot`] : []),
  ];
  ctx.stdout.write(`dry run: would resume session ${record.session_id} (${record.workflow_name}); nothing was run or changed\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
}

/** Loads the changed-file prompt (React and Ink) only when a person has to answer it. */
async function askOnTerminal(prepared: PreparedResume): Promise<'continue' | 'abort'> {
  const [{ askAboutChanges }, { diffLines }] = await Promise.all([importInk(() => import('../ui/changes/changes-screen.js')), import('./file-diff.js')]);
  const { handle, environment } = prepared;
  const blobs = handle.blobs();
  return askAboutChanges({
    sessionId: handle.record.session_id,
    changes: viewChanges(environment.changes, handle.record.cwd),
    loadDiff: (index) => diffLines(environment.changes[index]!, blobs, handle.record.cwd),
  });
}

/** `acode resume [<id>]`: replays the session's log, checks the environment, settles torn writes, continues. */
export async function resumeCommand(ctx: CommandContext, id: string | undefined, flags: ResumeFlags): Promise<ExitCode> {
  const approvals = approvalsFrom(flags.approval ?? {});
  const prepared = prepareResume(ctx, id);
  const { handle, spec, progress, plan, config, environment, specChange } = prepared;
  const record = handle.record;
  if (environment.timed_out) {
    throw new AcodeError(
      `environment validation did not finish within resume.validation_timeout_seconds (${config.validation_timeout_seconds} s; ${environment.checked} of ${Object.keys(progress.files).length} files checked). Raise it, or set resume.validate_environment: false`,
      ExitCode.environmentInvalid,
      'ACODE-RESUME-004',
    );
  }
  if (flags.dryRun) {
    printDryRun(ctx, prepared, flags, flags.strategy === 'retry' ? 'retry' : 'rollback');
    return ExitCode.ok;
  }
  handle.requireWritable(`resume session ${record.session_id}`);
  if (specChange) ctx.stderr.write(`acode: note: ${specChange.path} changed since the session started; the session keeps running its snapshot\n`);
  const views = viewChanges(environment.changes, record.cwd);
  if (views.length) {
    const onChange: OnChange = flags.yes ? 'continue' : (flags.onChange ?? (config.changed_files_action === 'prompt' && !ctx.interactive ? 'abort' : config.changed_files_action));
    await decideOnChanges(ctx, record.session_id, views, { onChange, ask: () => askOnTerminal(prepared) });
  }
  const strategy = await chooseStrategy(ctx, flags, prepared);
  const provider = createProvider(spec, ctx.env);

  // Nothing has been written so far; from here on this process holds the lock.
  const lease = leaseSession(handle, config.lock_timeout_seconds, prepared.logEpoch);
  let journal;
  let preamble: EngineEventBody[];
  let leftovers: string[];
  const blobs = handle.blobs();
  try {
    confirmUnchanged(prepared);
    journal = handle.openJournal();
    const accepted: EngineEventBody[] = environment.changes.length
      ? [{ type: 'environment_accepted', files: environment.changes.map((c) => ({ path: c.path, hash: c.hash, blob: c.hash ? snapshotNow(c.path, prepared.where, blobs) : null })) }]
      : [];
    preamble = [...lease.preamble, ...accepted, ...settlePendingWrites(prepared.pendingWrites, strategy, blobs, prepared.where, record.session_id)];
    // Only now that the lock is ours: no other process of this session can be mid-write.
    leftovers = handle.removeLeftoverTempFiles(writeFolders(progress, record.cwd));
  } catch (error) {
    lease.lock.release();
    throw error;
  }
  const cleaned = leftovers.length ? [`removed ${leftovers.length} temp file${leftovers.length === 1 ? '' : 's'} the stopped run left (${leftovers.map((p) => relative(record.cwd, p) || p).join(', ')})`] : [];
  ctx.stderr.write(`acode: resuming session ${record.session_id}\n${[...describePlan(plan), ...writeLines(prepared, strategy, record.cwd), ...cleaned].map((l) => `  ${l}`).join('\n')}\n`);
  const sealed = journal;
  return runSession(ctx, {
    sessionId: record.session_id,
    spec,
    variables: record.variables,
    provider,
    journal,
    blobs,
    progress,
    cwd: record.cwd,
    // --force on a resume lets its artifacts overwrite files this session did not write (as on run).
    artifacts: { ...recordedArtifactTarget(record), ...(flags.force ? { force: true } : {}) },
    autoResume: autoResumePolicy(config, flags.autoResume),
    approvals,
    saved: true,
    json: flags.json,
    lease,
    onLockLost: guardJournal(sealed, lease),
    preamble: [
      ...preamble,
      {
        type: 'resume_planned',
        steps_skipped: plan.skip.length,
        in_progress: plan.in_progress.map((step) => ({ step: step.step, attempt: step.attempt, action: step.action })),
        steps_remaining: plan.remaining.length + plan.in_progress.length,
      },
    ],
    close: () => sealed.close(),
  });
}
