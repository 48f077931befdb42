import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { MemoryBlobStore } from '../engine/blob-store.js';
import { nullJournal } from '../engine/journal.js';
import { initialProgress } from '../engine/session-progress.js';
import { mergeVariables, missingRequiredInputs } from '../engine/template-context.js';
import { createProvider } from '../providers/create-provider.js';
import { loadSpecFile } from '../spec/load-spec.js';
import { formatProblem } from '../spec/spec-problem.js';
import { hashText } from '../spec/hash.js';
import { openStore, type CommandContext } from './command-context.js';
import { parseVars } from './parse-vars.js';
import { guardJournal, leaseSession } from './session-lease.js';
import { autoResumePolicy, defaultResumeConfig, loadResumeConfig } from '../config/resume-config.js';
import { runSession } from './run-session.js';
import { approvalsFrom, type ApprovalFlags } from './approval-flags.js';

export interface RunFlags {
  vars: readonly string[];
  saveSession: boolean;
  json: boolean;
  /** false for --no-auto-resume; undefined: resume.auto_resume decides. */
  autoResume?: boolean;
  approval?: ApprovalFlags;
}

/** `acode run <spec>`: validates, creates the session (unless --no-save-session) and runs it. */
export async function runCommand(ctx: CommandContext, specPath: string, flags: RunFlags): Promise<ExitCode> {
  // Checked before anything is written: a contradictory answer changes nothing on disk.
  const approvals = approvalsFrom(flags.approval ?? {});
  const loaded = loadSpecFile(specPath);
  for (const warning of loaded.warnings) ctx.stderr.write(`${formatProblem(warning)}\n`);
  const { spec } = loaded;
  const variables = mergeVariables(spec, parseVars(flags.vars));
  const missing = missingRequiredInputs(spec, variables);
  if (missing.length) {
    throw new AcodeError(`${specPath}: required input${missing.length === 1 ? '' : 's'} ${missing.map((n) => `'${n}'`).join(', ')} not set; pass ${missing.map((n) => `--var ${n}=…`).join(' ')}`, ExitCode.usage);
  }
  const provider = createProvider(spec, ctx.env);
  const stepsTotal = spec.pattern.config.steps.length;

  if (!flags.saveSession) {
    return runSession(ctx, {
      sessionId: `unsaved-${randomBytes(4).toString('hex')}`,
      spec, variables, provider, journal: nullJournal, blobs: new MemoryBlobStore(), progress: initialProgress(stepsTotal), cwd: ctx.cwd, saved: false, json: flags.json,
      autoResume: autoResumePolicy(defaultResumeConfig, flags.autoResume),
      approvals,
    });
  }
  const store = openStore(ctx);
  store.requireWritable('start a session');
  const config = loadResumeConfig(store.home, ctx.cwd);
  const handle = store.create({
    workflow_name: spec.name,
    pattern_type: spec.pattern.type,
    spec_path: resolve(ctx.cwd, specPath),
    spec_hash: hashText(loaded.text),
    cwd: ctx.cwd,
    variables,
    runtime: { provider: spec.runtime.provider, model_id: spec.runtime.model_id, host: spec.runtime.host },
    specText: loaded.text,
    spec,
    stepsTotal,
  });
  const lease = leaseSession(handle, config.lock_timeout_seconds);
  const journal = handle.openJournal();
  return runSession(ctx, {
    sessionId: handle.record.session_id,
    spec, variables, provider, journal, blobs: handle.blobs(), progress: initialProgress(stepsTotal), cwd: ctx.cwd, saved: true, json: flags.json,
    autoResume: autoResumePolicy(config, flags.autoResume),
    approvals,
    lease,
    onLockLost: guardJournal(journal, lease),
    close: () => journal.close(),
  });
}
