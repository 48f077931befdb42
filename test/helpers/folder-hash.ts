import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Path → sha256 of every file under `dir`: two snapshots are equal iff nothing changed. */
export function hashFolder(dir: string, root = dir, into: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) hashFolder(path, root, into);
    else into[relative(root, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return into;
}
