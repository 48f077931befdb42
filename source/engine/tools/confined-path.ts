import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

/** The nearest existing ancestor's real path, so symlinks cannot lead outside. */
function realAncestor(path: string): string {
  let current = path;
  while (!existsSync(current)) current = dirname(current);
  return realpathSync(current);
}

/** Whether `path` is `base` or lies under it (both absolute, compared as written). */
export function inside(path: string, base: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Resolves a tool's path argument against the working directory and refuses anything outside it
 * and the spec's `env.mounts` (`..`, absolute paths elsewhere, symlinks pointing out).
 */
export function confinedPath(cwd: string, path: unknown, extraRoots: readonly string[] = []): string {
  if (typeof path !== 'string' || path.trim() === '') throw new ToolInputError('path must be a non-empty string');
  const target = resolve(cwd, path);
  const real = realAncestor(target);
  const allowed = [cwd, ...extraRoots.map((root) => resolve(cwd, root))].some((root) => existsSync(root) && inside(target, root) && inside(real, realpathSync(root)));
  if (!allowed) throw outsideError(path, cwd, extraRoots.length > 0);
  return target;
}

/** The refusal for a path that is (or, opened, turned out to be) outside every folder tools may touch. */
export function outsideError(path: string, cwd: string, mounts: boolean): ToolInputError {
  return new ToolInputError(`path '${path}' is outside the working directory ${cwd}${mounts ? ` and env.mounts` : ''}; add its folder under env.mounts in the spec to allow it`);
}
