import { lstatSync, readFileSync } from 'node:fs';
import { runtimeNames } from '../spec/template-scopes.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { sha256 } from './blob-store.js';
import { brokenArtifactPathRule } from '../spec/artifact-path-rules.js';
import type { WorkflowSpec } from '../spec/schema.js';
import { renderTemplate, TemplateError } from '../spec/template.js';
import { scanTemplate } from '../spec/template-scan.js';
import type { SessionProgress } from './session-progress.js';
import { preflightContext, type Variables } from './template-context.js';

export interface RenderedArtifact {
  path: string;
  content: Buffer;
  /** An earlier session's artifact, unchanged since, that this one replaces. */
  replaces?: ArtifactWrite;
}

/** Who wrote an artifact last: a session, and the sha256 of the bytes it wrote. */
export interface ArtifactWrite {
  session_id: string;
  sha256: string;
}

/**
 * The artifacts earlier sessions wrote, by absolute path (the store keeps them by path, so a lookup
 * costs the same however many sessions there are). A file still as a session wrote it is acode's own
 * output, which a later run replaces, saying whose it was; a file a person wrote or edited is not.
 */
export interface ArtifactOwners {
  lastWrite(path: string): ArtifactWrite | undefined;
  recordWrite(path: string, write: ArtifactWrite): void;
}

/** An artifact path placed by `artifactPath`, with the earlier session's file it replaces, if any. */
export interface PlacedArtifact {
  path: string;
  replaces?: ArtifactWrite;
}

/** Where a session writes `outputs.artifacts`, chosen by `--out` and `--force` and kept with the session. */
export interface ArtifactTarget {
  /** The output folder, absolute (strands-cli's `--out`, default ./artifacts). */
  dir: string;
  /** Overwrite files this session did not write (strands-cli's `--force`, default off). */
  force: boolean;
  /** A fork's: files its source session wrote, which count as the fork's own. */
  inherited?: readonly string[];
  /** What earlier sessions wrote (absent for --no-save-session: no store to ask or tell). */
  owners?: ArtifactOwners;
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
 * The earlier session whose output `file` still is, byte for byte; else the refusal, naming the
 * session that last wrote it when one did. Never says "this session": before the first step there
 * is none yet.
 */
function earlierOwnOutput(file: string, owners: ArtifactOwners | undefined): ArtifactWrite {
  const earlier = owners?.lastWrite(file);
  if (earlier && sha256(readFileSync(file)) === earlier.sha256) return earlier;
  const why = earlier ? `was changed since session ${earlier.session_id} wrote it` : 'no acode session wrote it';
  throw new ArtifactPathError(`artifact ${file} already exists and ${why}; move it away, or pass --force (to acode run or acode resume) to overwrite it`);
}

/**
 * Where an artifact's rendered path lands, by strands-cli's rules: relative paths only, no `..`
 * component, each component sanitized, inside the output folder, no symlink anywhere below the
 * output folder, and an existing file only with `--force`, when this session wrote it, or when an
 * earlier session did and nobody changed it since (`replaces` names that session).
 */
export function artifactPath(rendered: string, target: ArtifactTarget, wroteBefore: (path: string) => boolean): PlacedArtifact {
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
      if (!stat.isFile()) throw new ArtifactPathError(`artifact ${file} already exists and is not a file; move it away`);
      return { path: file, replaces: earlierOwnOutput(file, target.owners) };
    }
  }
  return { path: file };
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
    ...artifactPath(renderNamed(artifact.path, context, `outputs.artifacts.${i}.path`), target, wroteBefore),
    content: Buffer.from(renderNamed(artifact.from, context, `outputs.artifacts.${i}.from`)),
  }));
}

/** The target a session recorded; sessions from before `--out` wrote into their working directory, overwriting. */
export function recordedArtifactTarget(record: { cwd: string; artifacts_dir?: string; artifacts_force?: boolean; artifacts_inherited?: string[] }): ArtifactTarget {
  if (record.artifacts_dir === undefined) return { dir: record.cwd, force: true };
  return { dir: record.artifacts_dir, force: record.artifacts_force ?? false, inherited: record.artifacts_inherited };
}

/** What the check before the first step found: paths refused (by artifact index), and earlier sessions' files the run will replace. */
export interface ArtifactPreflight {
  problems: { index: number; message: string }[];
  replaced: { path: string; by: ArtifactWrite }[];
}

/**
 * Checks, before the first step, every artifact path that does not depend on a response: rendered
 * with the variables alone and placed by `artifactPath`.
 */
export function preflightArtifacts(spec: WorkflowSpec, variables: Variables, target: ArtifactTarget): ArtifactPreflight {
  const found: ArtifactPreflight = { problems: [], replaced: [] };
  for (const [index, artifact] of (spec.outputs?.artifacts ?? []).entries()) {
    const reads = scanTemplate(artifact.path).names;
    // Names the patterns give only once steps have run (a route chosen, a graph's terminal node).
    if (runtimeNames().some((name) => reads.has(name))) continue;
    try {
      const placed = artifactPath(renderTemplate(artifact.path, preflightContext(variables)), target, () => false);
      if (placed.replaces) found.replaced.push({ path: placed.path, by: placed.replaces });
    } catch (error) {
      if (!(error instanceof ArtifactPathError) && !(error instanceof TemplateError)) throw error;
      found.problems.push({ index, message: error.message });
    }
  }
  return found;
}

/** A file-system refusal (permissions, read-only, full disk, a file where a folder should be). */
export function isFileSystemRefusal(error: unknown): error is NodeJS.ErrnoException {
  // ENOENT too: the output folder gone from under the write, or one that takes no files (--out /proc/self/fd): a stack trace before.
  return error instanceof Error && ['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EISDIR', 'ELOOP', 'EEXIST', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '');
}
