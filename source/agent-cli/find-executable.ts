import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The file `name` runs as, searching PATH as a shell does; undefined when none is executable. */
export function findExecutable(name: string, path: string = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}
