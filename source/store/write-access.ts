import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';

const refusals = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT']);

/** A write the file system refused (read-only, no permission, full): for a cache, a reason to skip writing, not to fail. */
export function isWriteRefused(error: unknown): boolean {
  return refusals.has((error as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/** `path`, or its nearest ancestor that exists: where a write under `path` would happen. */
function nearestExisting(path: string): string {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Before a command that changes sessions writes anything: each folder it writes in must accept
 * writes. A read-only file system (or a folder without permission) is then said once, naming the
 * folder, instead of surfacing as a trace from the first write halfway through.
 */
export function requireWritable(dirs: readonly string[], action: string): void {
  for (const dir of dirs.map(nearestExisting)) {
    try {
      accessSync(dir, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EROFS') {
        throw new AcodeError(`cannot ${action}: ${dir} is on a read-only file system. Remount it read-write, or set ACODE_HOME to a writable folder`, ExitCode.failure);
      }
      if (code === 'EACCES' || code === 'EPERM') {
        throw new AcodeError(`cannot ${action}: no permission to write in ${dir}. Fix its permissions, or set ACODE_HOME to a folder you can write`, ExitCode.failure);
      }
      throw error;
    }
  }
}
