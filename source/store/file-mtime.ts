import { statSync } from 'node:fs';

/** A file's modification time in ms, or 0 when it is missing: cheap change detection. */
export function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
