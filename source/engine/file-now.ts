import { readFileSync, statSync } from 'node:fs';

/** What no file at a path looks like: nothing there, a path through a file, a symbolic link loop. */
const noFileCodes = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG']);

/**
 * The file at `path` now, when it is a regular file: its bytes and when it changed. Undefined when
 * there is none — nothing, a folder (a read fails with an EISDIR that names no path), a named pipe
 * or a device (a read would wait for a writer for ever), a symbolic link loop, a path through a
 * file: the file the session knew is gone. Any other failure (EACCES) is thrown, naming the path.
 */
export function regularFileNow(path: string): { content: Buffer; mtimeMs: number } | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    if (noFileCodes.has((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
  if (!stat.isFile()) return undefined;
  return { content: readFileSync(path), mtimeMs: stat.mtimeMs };
}
