import { randomBytes } from 'node:crypto';
import { requireEnforceableCap } from './cost-cap.js';
import { patternFor } from '../engine/patterns/pattern-for.js';
import { realpathSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { autoResumePolicy, defaultResumeConfig, loadResumeConfig } from '../config/resume-config.js';
import { preflightArtifacts, type ArtifactOwners, type ArtifactTarget, type ArtifactWrite } from '../engine/artifacts.js';
import { defaultArtifactDir } from '../spec/artifact-path-rules.js';
import { MemoryBlobStore } from '../engine/blob-store.js';
import { nullJournal } from '../engine/journal.js';
import { initialProgress } from '../engine/session-progress.js';
import { mergeVariables, missingRequiredInputs, type Variables } from '../engine/template-context.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { Provider } from '../engine/provider.js';
import { readyExecutors, type HttpExecutor } from '../engine/tools/http-executors.js';
import { createProvider } from '../providers/create-provider.js';
import { hashText } from '../spec/hash.js';
import { loadSpecFile, templateFields, type LoadedSpec } from '../spec/load-spec.js';
import { formatProblem } from '../spec/spec-problem.js';
import { unusedVariables } from '../spec/template-scopes.js';
import { parsePositioned } from '../spec/yaml-positions.js';
import { takeLease } from './lease.js';
import { requirePython } from './python-check.js';
import { heldRun, releaseHeld, unsavedRun, type PreparedRun, type StartIntro } from './prepared-run.js';
import type { LeasedJournal, SessionRepository } from './repository.js';

/** A spec read for a run, with what the person should be warned of before anything runs. */
export interface SpecForRun {
  loaded: LoadedSpec;
  /** `--var` names nothing declares or reads (with the closest name that is). */
  unused: { name: string; closest?: string }[];
}

/** Reads and validates the spec; with the --var names known, a template reading a name nothing provides is an error now, not after spending on steps. */
export function readSpecForRun(specPath: string, variableNames: readonly string[]): SpecForRun {
  const loaded = loadSpecFile(specPath, { variables: variableNames });
  const { spec } = loaded;
  return { loaded, unused: unusedVariables(spec, variableNames, [...templateFields(spec)].map(([, source]) => source)) };
}

export interface StartRequest {
  /** As given: messages name it. */
  specPath: string;
  loaded: LoadedSpec;
  /** `--var` values. */
  overrides: Variables;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `--out`: the artifacts' folder (default ./artifacts). */
  out?: string;
  /** `--force`: artifacts may overwrite files this session did not write. */
  force?: boolean;
  /** false for --no-auto-resume; undefined: resume.auto_resume decides. */
  autoResume?: boolean;
  /** `--name`: the session's unique name in its ACODE_HOME. */
  name?: string;
  /** What earlier sessions wrote as artifacts (the store's); absent with --no-save-session. */
  owners?: ArtifactOwners;
}

/** The output folder, absolute and with symlinks resolved, so a resume writes to the same place. */
function artifactTarget(request: StartRequest): ArtifactTarget {
  const dir = resolve(request.cwd, request.out ?? defaultArtifactDir);
  let stat;
  const rest = { force: request.force ?? false, ...(request.owners ? { owners: request.owners } : {}) };
  try {
    stat = statSync(dir);
  } catch {
    return { dir, ...rest };
  }
  if (!stat.isDirectory()) throw new AcodeError(`--out ${request.out ?? defaultArtifactDir}: ${dir} is not a folder; choose a folder for the artifacts`, ExitCode.usage);
  return { dir: realpathSync(dir), ...rest };
}

/**
 * Artifact paths that can be placed before any step runs, checked now: a bad one costs nothing yet.
 * Returns the earlier sessions' unchanged files the run will replace.
 */
function checkArtifactPaths(request: StartRequest, variables: Variables, target: ArtifactTarget): ReplacedArtifact[] {
  const { loaded } = request;
  const { problems, replaced } = preflightArtifacts(loaded.spec, variables, target);
  if (!problems.length) return replaced;
  const yaml = parsePositioned(loaded.text);
  const lines = problems.map(({ index, message }) => {
    const { line, column } = yaml.locate(['outputs', 'artifacts', index, 'path']);
    return formatProblem({ severity: 'error', file: loaded.file, line, column, message });
  });
  const where = relative(request.cwd, target.dir) || '.';
  throw new AcodeError(`${lines.join('\n')}\nnothing was run; fix the artifact path${problems.length === 1 ? '' : 's'} (output folder ${where}, --out to change it, --force to overwrite)`, ExitCode.usage);
}

/** An earlier session's artifact, unchanged since it wrote it, that a new run writes over. */
export interface ReplacedArtifact {
  path: string;
  by: ArtifactWrite;
}

/** A start whose inputs, artifact paths and provider checked out: nothing is written before this. */
export interface CheckedStart {
  request: StartRequest;
  variables: Variables;
  artifacts: ArtifactTarget;
  provider: Provider;
  executors: ReadonlyMap<string, HttpExecutor>;
  /** For the command to say before the run: files of earlier sessions this run will replace. */
  replaced: ReplacedArtifact[];
}

/** Checks a new run of a spec before anything is stored: required inputs, python3 for python_exec, artifact paths, the provider. */
export function checkStart(request: StartRequest): CheckedStart {
  const { loaded, specPath } = request;
  const { spec } = loaded;
  const variables = mergeVariables(spec, request.overrides);
  const missing = missingRequiredInputs(spec, variables);
  if (missing.length) {
    throw new AcodeError(`${specPath}: required input${missing.length === 1 ? '' : 's'} ${missing.map((n) => `'${n}'`).join(', ')} not set; pass ${missing.map((n) => `--var ${n}=…`).join(' ')}`, ExitCode.usage);
  }
  requirePython(spec, specPath, request.env);
  const artifacts = artifactTarget(request);
  const replaced = checkArtifactPaths(request, variables, artifacts);
  return { request, variables, artifacts, provider: createProvider(spec, request.env), executors: readyExecutors(spec, request.env), replaced };
}

/**
 * A new run of a checked spec: unless `repository` is null (--no-save-session), a new session is
 * created and its lease taken.
 */
export async function startRun(repository: SessionRepository | null, checked: CheckedStart): Promise<PreparedRun<StartIntro>> {
  const { request, variables, artifacts, provider, executors } = checked;
  const { loaded, specPath, cwd } = request;
  const { spec } = loaded;
  await requireEnforceableCap(spec);
  const pattern = patternFor(spec);
  const stepsTotal = pattern.shape(initialProgress(0)).length;
  const fields = { intro: { kind: 'start' } as const, spec, pattern, variables, provider, executors, cwd, artifacts, preamble: [], progress: initialProgress(stepsTotal) };

  if (!repository) {
    return unsavedRun({ ...fields, sessionId: `unsaved-${randomBytes(4).toString('hex')}`, blobs: new MemoryBlobStore(), autoResume: autoResumePolicy(defaultResumeConfig, request.autoResume) }, nullJournal);
  }
  await repository.requireWritable('start a session');
  const config = loadResumeConfig(repository.home, cwd);
  const session = await repository.create({
    ...(request.name === undefined ? {} : { name: request.name }),
    workflow_name: spec.name,
    pattern_type: spec.pattern.type,
    spec_path: resolve(cwd, specPath),
    spec_hash: hashText(loaded.text),
    cwd,
    variables,
    runtime: { provider: spec.runtime.provider, model_id: spec.runtime.model_id, host: spec.runtime.host },
    artifacts_dir: artifacts.dir,
    artifacts_force: artifacts.force,
    specText: loaded.text,
    spec,
    stepsTotal,
  });
  const sessionId = session.record.session_id;
  const lease = await takeLease(repository, sessionId, config.lock_timeout_seconds);
  let journal: LeasedJournal | undefined;
  try {
    journal = session.openJournal();
    return heldRun({ ...fields, ...(request.name === undefined ? {} : { name: request.name }), sessionId, blobs: session.blobs(), autoResume: autoResumePolicy(config, request.autoResume) }, lease, journal);
  } catch (error) {
    releaseHeld(lease, journal);
    throw error;
  }
}
