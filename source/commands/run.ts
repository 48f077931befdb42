import { randomBytes } from 'node:crypto';
import { patternFor } from '../engine/patterns/pattern-for.js';
import { realpathSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { MemoryBlobStore } from '../engine/blob-store.js';
import { nullJournal } from '../engine/journal.js';
import { initialProgress } from '../engine/session-progress.js';
import { mergeVariables, missingRequiredInputs } from '../engine/template-context.js';
import { createProvider } from '../providers/create-provider.js';
import { loadSpecFile, templateFields, type LoadedSpec } from '../spec/load-spec.js';
import { formatProblem } from '../spec/spec-problem.js';
import { parsePositioned } from '../spec/yaml-positions.js';
import { unusedVariables } from '../spec/template-scopes.js';
import { defaultArtifactDir, preflightArtifacts, type ArtifactTarget } from '../engine/artifacts.js';
import type { Variables } from '../engine/template-context.js';
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
  /** `--out <dir>`: the artifacts' output folder (strands-cli's flag; default ./artifacts). */
  out?: string;
  /** `--force`: artifacts may overwrite files this session did not write. */
  force?: boolean;
}

/** The output folder, absolute and with symlinks resolved, so a resume writes to the same place. */
function artifactTarget(ctx: CommandContext, flags: RunFlags): ArtifactTarget {
  const dir = resolve(ctx.cwd, flags.out ?? defaultArtifactDir);
  let stat;
  try {
    stat = statSync(dir);
  } catch {
    return { dir, force: flags.force ?? false };
  }
  if (!stat.isDirectory()) throw new AcodeError(`--out ${flags.out ?? defaultArtifactDir}: ${dir} is not a folder; choose a folder for the artifacts`, ExitCode.usage);
  return { dir: realpathSync(dir), force: flags.force ?? false };
}

/** Artifact paths that can be placed before any step runs, checked now: a bad one costs nothing yet. */
function checkArtifactPaths(ctx: CommandContext, loaded: LoadedSpec, variables: Variables, target: ArtifactTarget): void {
  const problems = preflightArtifacts(loaded.spec, variables, target);
  if (!problems.length) return;
  const yaml = parsePositioned(loaded.text);
  const lines = problems.map(({ index, message }) => {
    const { line, column } = yaml.locate(['outputs', 'artifacts', index, 'path']);
    return formatProblem({ severity: 'error', file: loaded.file, line, column, message });
  });
  const where = relative(ctx.cwd, target.dir) || '.';
  throw new AcodeError(`${lines.join('\n')}\nnothing was run; fix the artifact path${problems.length === 1 ? '' : 's'} (output folder ${where}, --out to change it, --force to overwrite)`, ExitCode.usage);
}

/** `acode run <spec>`: validates, creates the session (unless --no-save-session) and runs it. */
export async function runCommand(ctx: CommandContext, specPath: string, flags: RunFlags): Promise<ExitCode> {
  // Checked before anything is written: a contradictory answer changes nothing on disk.
  const approvals = approvalsFrom(flags.approval ?? {});
  const overrides = parseVars(flags.vars);
  // With the --var names known, a template reading a name nothing provides is an error now, not after spending on steps.
  const loaded = loadSpecFile(specPath, { variables: Object.keys(overrides) });
  for (const warning of loaded.warnings) ctx.stderr.write(`${formatProblem(warning)}\n`);
  const { spec } = loaded;
  const stepsTotal = patternFor(spec).shape(initialProgress(0)).length;
  for (const { name, closest } of unusedVariables(spec, Object.keys(overrides), [...templateFields(spec)].map(([, source]) => source))) {
    ctx.stderr.write(`acode: warning: --var ${name} is not declared under inputs and no template uses it; it is ignored${closest ? ` (did you mean '${closest}'?)` : ''}\n`);
  }
  const variables = mergeVariables(spec, overrides);
  const missing = missingRequiredInputs(spec, variables);
  if (missing.length) {
    throw new AcodeError(`${specPath}: required input${missing.length === 1 ? '' : 's'} ${missing.map((n) => `'${n}'`).join(', ')} not set; pass ${missing.map((n) => `--var ${n}=…`).join(' ')}`, ExitCode.usage);
  }
  const target = artifactTarget(ctx, flags);
  checkArtifactPaths(ctx, loaded, variables, target);
  const provider = createProvider(spec, ctx.env);

  if (!flags.saveSession) {
    return runSession(ctx, {
      sessionId: `unsaved-${randomBytes(4).toString('hex')}`,
      spec, variables, provider, journal: nullJournal, blobs: new MemoryBlobStore(), progress: initialProgress(stepsTotal), cwd: ctx.cwd, artifacts: target, saved: false, json: flags.json,
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
    artifacts_dir: target.dir,
    artifacts_force: target.force,
    specText: loaded.text,
    spec,
    stepsTotal,
  });
  const lease = leaseSession(handle, config.lock_timeout_seconds);
  const journal = handle.openJournal();
  return runSession(ctx, {
    sessionId: handle.record.session_id,
    spec, variables, provider, journal, blobs: handle.blobs(), progress: initialProgress(stepsTotal), cwd: ctx.cwd, artifacts: target, saved: true, json: flags.json,
    autoResume: autoResumePolicy(config, flags.autoResume),
    approvals,
    lease,
    onLockLost: guardJournal(journal, lease),
    close: () => journal.close(),
  });
}
