import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Path → kind, size, mtime and sha256 of everything under `dir` (folders too): equal snapshots
 * mean nothing was created, removed, rewritten or even touched.
 */
export function snapshotFolder(dir: string, root = dir, into: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    const key = relative(root, path);
    if (stat.isDirectory()) {
      into[`${key}/`] = `dir mtime=${stat.mtimeMs}`;
      snapshotFolder(path, root, into);
    } else {
      const hash = stat.isFile() ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'special';
      into[key] = `size=${stat.size} mtime=${stat.mtimeMs} ${hash}`;
    }
  }
  return into;
}
