import { lstatSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { brokenArtifactPathRule } from '../spec/artifact-path-rules.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { renderTemplate, TemplateError } from '../spec/template.js';
import { scanTemplate } from '../spec/template-scan.js';
import type { SessionProgress } from './session-progress.js';
import { preflightContext, type Variables } from './template-context.js';

export interface RenderedArtifact {
  path: string;
  content: Buffer;
}

/** Where a session writes `outputs.artifacts`, chosen by `--out` and `--force` and kept with the session. */
export interface ArtifactTarget {
  /** The output folder, absolute (strands-cli's `--out`, default ./artifacts). */
  dir: string;
  /** Overwrite files this session did not write (strands-cli's `--force`, default off). */
  force: boolean;
  /** A fork's: files its source session wrote, which count as the fork's own. */
  inherited?: readonly string[];
}

/**
 * An artifact path acode refuses. `brokenRule`: the rendered path itself breaks a rule (absolute,
 * `..`, empty, outside the folder) — the session's spec and responses made it, so no resume can
 * change it; otherwise something on disk is in the way (a file, a link), which a person can move.
 */
export class ArtifactPathError extends Error {
  override readonly name = 'ArtifactPathError';
  constructor(
    message: string,
    readonly brokenRule = false,
  ) {
    super(message);
  }
}

/**
 * One path component made safe the way strands-cli's `sanitize_filename` does it: characters other
 * than letters, digits, `_`, `-` and `.` become `_`, leading and trailing dots and underscores go,
 * runs of `_` collapse, at most 100 characters, never empty.
 */
export function sanitizeComponent(part: string, maxLength = 100): string {
  let safe = part.replace(/[^\p{L}\p{N}\p{M}_\-.]/gu, '_').replace(/^[._]+|[._]+$/g, '').replace(/_+/g, '_');
  const chars = Array.from(safe);
  if (chars.length > maxLength) safe = chars.slice(0, maxLength).join('').replace(/[._]+$/, '');
  return safe || 'unnamed';
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * Where an artifact's rendered path lands, by strands-cli's rules: relative paths only, no `..`
 * component, each component sanitized, inside the output folder, no symlink anywhere below the
 * output folder, and an existing file only with `--force` or when this session wrote it.
 */
export function artifactPath(rendered: string, target: ArtifactTarget, wroteBefore: (path: string) => boolean): string {
  const shown = rendered.trim();
  const broken = brokenArtifactPathRule(shown);
  if (broken) throw new ArtifactPathError(broken, true);
  const parts = shown.split('/').filter((part) => part !== '' && part !== '.');
  const safe = parts.map((part) => sanitizeComponent(part));
  const file = resolve(target.dir, ...safe);
  const inside = relative(target.dir, file);
  if (!inside || inside.startsWith('..') || isAbsolute(inside)) throw new ArtifactPathError(`artifact path ${shown} escapes the output folder ${target.dir}`, true);
  let at = target.dir;
  for (const [i, part] of safe.entries()) {
    at = join(at, part);
    let stat;
    try {
      stat = lstatSync(at);
    } catch (error) {
      if (errno(error) === 'ENOENT') break;
      if (errno(error) === 'ENOTDIR') throw new ArtifactPathError(`artifact path ${file} passes through a file where a folder is needed (${relative(target.dir, at)}); move that file away`);
      throw error;
    }
    if (stat.isSymbolicLink()) throw new ArtifactPathError(`artifact path ${at} is a symlink; symlinks are not allowed for artifacts — remove it or choose another --out folder`);
    if (i === safe.length - 1 && !target.force && !wroteBefore(file) && !target.inherited?.includes(file)) {
      throw new ArtifactPathError(`artifact ${file} already exists and this session did not write it; move it away, or pass --force (to acode run or acode resume) to overwrite it`);
    }
  }
  return file;
}

/** Whether the session wrote (or began writing) `path`: its own files are never "someone else's". */
export function sessionWrote(progress: Pick<SessionProgress, 'files' | 'pending_writes'>, path: string): boolean {
  return progress.files[path]?.op === 'write' || Object.values(progress.pending_writes).some((write) => write.path === path);
}

/** renderTemplate, its error naming the template (a spec may have many artifacts) and its line. */
function renderNamed(source: string, context: Record<string, unknown>, field: string): string {
  try {
    return renderTemplate(source, context);
  } catch (error) {
    if (error instanceof TemplateError) throw new TemplateError(`template ${field}, line ${error.line}: ${error.message}`, error.line, error.column);
    throw error;
  }
}

/** Renders `outputs.artifacts` and places each by `artifactPath`. Writes nothing. */
export function renderArtifacts(spec: WorkflowSpec, context: Record<string, unknown>, target: ArtifactTarget, wroteBefore: (path: string) => boolean): RenderedArtifact[] {
  return (spec.outputs?.artifacts ?? []).map((artifact, i) => ({
    path: artifactPath(renderNamed(artifact.path, context, `outputs.artifacts.${i}.path`), target, wroteBefore),
    content: Buffer.from(renderNamed(artifact.from, context, `outputs.artifacts.${i}.from`)),
  }));
}

/** The target a session recorded; sessions from before `--out` wrote into their working directory, overwriting. */
export function recordedArtifactTarget(record: { cwd: string; artifacts_dir?: string; artifacts_force?: boolean; artifacts_inherited?: string[] }): ArtifactTarget {
  if (record.artifacts_dir === undefined) return { dir: record.cwd, force: true };
  return { dir: record.artifacts_dir, force: record.artifacts_force ?? false, inherited: record.artifacts_inherited };
}

/** Names an artifact path may read that exist only once steps have run. */
const runNames = ['steps', 'tasks', 'branches', 'last_response', 'TRACE'];

/**
 * Checks, before the first step, every artifact path that does not depend on a response: rendered
 * with the variables alone and placed by `artifactPath`. Returns the problems by artifact index.
 */
export function preflightArtifacts(spec: WorkflowSpec, variables: Variables, target: ArtifactTarget): { index: number; message: string }[] {
  const problems: { index: number; message: string }[] = [];
  for (const [index, artifact] of (spec.outputs?.artifacts ?? []).entries()) {
    const reads = scanTemplate(artifact.path).names;
    if (runNames.some((name) => reads.has(name))) continue;
    try {
      artifactPath(renderTemplate(artifact.path, preflightContext(variables)), target, () => false);
    } catch (error) {
      if (!(error instanceof ArtifactPathError) && !(error instanceof TemplateError)) throw error;
      problems.push({ index, message: error.message });
    }
  }
  return problems;
}
