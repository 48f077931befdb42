import { statSync, type Stats } from 'node:fs';

/** A file's modification time in ms, or 0 when it is missing: cheap change detection. */
export function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** One version of a file: a rewrite (a new inode, by rename) or a change gives another stamp. */
export interface FileStamp {
  mtime: number;
  size: number;
  ino: number;
}

export const stampOfStats = (stat: Stats): FileStamp => ({ mtime: stat.mtimeMs, size: stat.size, ino: stat.ino });

/** The file's stamp, or null when it is missing. */
export function fileStamp(path: string): FileStamp | null {
  try {
    return stampOfStats(statSync(path));
  } catch {
    return null;
  }
}

export const sameStamp = (a: FileStamp | null, b: FileStamp | null): boolean => a !== null && b !== null && a.mtime === b.mtime && a.size === b.size && a.ino === b.ino;
