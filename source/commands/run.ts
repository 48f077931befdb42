import { relative } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { checkRunModels, runModelProblem } from '../session/model-check.js';
import { checkSessionName } from '../session/session-name.js';
import { modelEndpoint } from '../providers/create-provider.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { checkStart, readSpecForRun, startRun } from '../session/start.js';
import { formatProblem } from '../spec/spec-problem.js';
import { approvalsFrom, type ApprovalFlags } from './approval-flags.js';
import { openRepository, type CommandContext } from './command-context.js';
import { parseVars } from './parse-vars.js';
import { runSession } from './run-session.js';

export interface RunFlags {
  vars: readonly string[];
  saveSession: boolean;
  json: boolean;
  /** false for --no-auto-resume; undefined: resume.auto_resume decides. */
  autoResume?: boolean;
  approval?: ApprovalFlags;
  /** `--out <dir>`: the artifacts' output folder (strands-cli's flag; default ./artifacts). */
  out?: string;
  /** `--force`: artifacts may overwrite files this session did not write. */
  force?: boolean;
  /** `--name`: a unique human name for the session. */
  name?: string;
  /** `--stream`: without a terminal, each step's answer on stdout as it arrives. */
  stream?: boolean;
  /** `--offline`: do not ask the provider whether it offers the spec's models. */
  offline?: boolean;
}

/** Asks the provider once, before a session exists, whether it offers the spec's models; --offline skips it, saying so. */
async function checkModelsBeforeStart(ctx: CommandContext, specPath: string, spec: WorkflowSpec, offline: boolean): Promise<void> {
  if (modelEndpoint(spec, ctx.env) === undefined) return; // scripted: no models to ask about
  if (offline) {
    ctx.stderr.write(`acode: --offline: the provider was not asked whether it offers the spec's models\n`);
    return;
  }
  const checks = await checkRunModels(spec, ctx.env);
  const problem = checks && runModelProblem(checks, specPath, spec.runtime.provider === 'ollama');
  if (problem) throw problem;
}

/** `acode run <spec>`: validates, creates the session (unless --no-save-session) and runs it. */
export async function runCommand(ctx: CommandContext, specPath: string, flags: RunFlags): Promise<ExitCode> {
  // Checked before anything is written: a contradictory answer changes nothing on disk.
  const approvals = approvalsFrom(flags.approval ?? {});
  const name = flags.name === undefined ? undefined : checkSessionName(flags.name);
  if (name !== undefined && !flags.saveSession) throw new AcodeError(`--name names a saved session; drop --no-save-session, or --name`, ExitCode.usage);
  const overrides = parseVars(flags.vars);
  const { loaded, unused } = readSpecForRun(specPath, Object.keys(overrides));
  for (const warning of loaded.warnings) ctx.stderr.write(`${formatProblem(warning)}\n`);
  for (const { name, closest } of unused) {
    ctx.stderr.write(`acode: warning: --var ${name} is not declared under inputs and no template uses it; it is ignored${closest ? ` (did you mean '${closest}'?)` : ''}\n`);
  }
  // --no-save-session: no repository, nothing stored.
  const repository = flags.saveSession ? openRepository(ctx) : null;
  const owners = repository?.artifactOwners();
  const checked = checkStart({ specPath, loaded, overrides, cwd: ctx.cwd, env: ctx.env, out: flags.out, force: flags.force, autoResume: flags.autoResume, name, ...(owners ? { owners } : {}) });
  await checkModelsBeforeStart(ctx, specPath, checked.request.loaded.spec, flags.offline ?? false);
  for (const { path, by } of checked.replaced) {
    ctx.stderr.write(`acode: replacing ${relative(ctx.cwd, path) || path}, written by session ${by.session_id} and unchanged since\n`);
  }
  const prepared = await startRun(repository, checked);
  return runSession(ctx, prepared, { json: flags.json, approvals, stream: flags.stream });
}
