import { randomBytes } from 'node:crypto';
import { linkSync, lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';

function refusal(error: unknown, shown: string, path: string): AcodeError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const why =
    code === 'EEXIST' ? 'it exists; choose another file, or add --force to replace it'
    : code === 'EISDIR' ? 'it is a folder; give the name of a file (inside it, or beside it)'
    : code === 'ENOENT' ? `the folder ${dirname(path)} does not exist; create it first (mkdir -p) or choose another path`
    : code === 'ENOTDIR' ? `${dirname(path)} passes through a file, not a folder; choose another path`
    : code === 'ENOSPC' || code === 'EDQUOT' ? `no space left there (${code}); free some space or choose another place`
    : code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? `no permission to write there (${code}); choose a path you can write`
    : `${(error as Error).message}`;
  return new AcodeError(`cannot write ${shown}: ${why}`, ExitCode.usage);
}

/** Whether anything — a dangling symlink too — is at `path`; a path through a file holds nothing. */
export function somethingAt(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Writes a file the user named (a starter spec, the schema): whole or not at all. The text goes to
 * a temporary file beside it first, then is renamed over `path` — or, when `replace` is false,
 * linked, which fails on anything already there, a dangling symlink too (never written through).
 * A path acode cannot write is a usage error naming it, not a stack trace.
 */
export function writeUserFile(path: string, shown: string, text: string, { replace }: { replace: boolean }): void {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temp, text, { flag: 'wx', mode: 0o644 });
    if (replace) renameSync(temp, path);
    else linkSync(temp, path);
  } catch (error) {
    throw refusal(error, shown, path);
  } finally {
    // The temporary file may not exist, or not be reachable (a path through a file): the refusal
    // above says why, and nothing was written.
    try {
      rmSync(temp, { force: true });
    } catch {
      // nothing to remove
    }
  }
}
