import { closeSync, fchmodSync, fdatasyncSync, fstatSync, fsyncSync, openSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { stampOfStats, type FileStamp } from './file-mtime.js';
import { basename, dirname, join } from 'node:path';

let counter = 0;

/** Directory handles kept open for the fsync after each rename: a checkpoint per step must not reopen them. */
const directoryHandles = new Map<string, number>();
const maxDirectoryHandles = 32;

/**
 * Makes a failed write's error name `path` (an error of writeSync on a descriptor names no file,
 * one of a temp file names the temp), so that "disk full writing …" can say which file.
 */
export function namingFile(error: unknown, path: string): unknown {
  if (error instanceof Error && 'code' in error) (error as NodeJS.ErrnoException).path = path;
  return error;
}

/** writeSync may write less than asked (a full disk, a signal): loop until every byte is down. */
export function writeAll(fd: number, data: Uint8Array): void {
  for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset, data.length - offset);
}

/** fsyncs a directory so that a rename inside it survives a power cut. */
export function fsyncDirectory(dir: string): void {
  let fd = directoryHandles.get(dir);
  if (fd === undefined) {
    if (directoryHandles.size >= maxDirectoryHandles) {
      for (const handle of directoryHandles.values()) closeSync(handle);
      directoryHandles.clear();
    }
    fd = openSync(dir, 'r');
    directoryHandles.set(dir, fd);
  }
  try {
    fsyncSync(fd);
  } catch (error) {
    // The directory was removed (a deleted session): forget the handle.
    directoryHandles.delete(dir);
    closeSync(fd);
    throw error;
  }
}

/**
 * Crash-atomic file replacement: write a temp file beside the target → fdatasync (the data and the
 * size, all a reader needs) → rename → fsync the directory. A crash at any instant leaves the old
 * file or the new one, never a torn one. Returns the new file's stamp (taken from the temp file,
 * which the rename does not change), so that a cache of it can name exactly this version.
 * Synchronous on purpose: it is ~0.3 ms here, cheaper than a thread-pool round trip per call.
 */
export function writeFileDurable(path: string, data: string | Uint8Array, mode = 0o600, owner?: string): FileStamp {
  return replaceFile(path, data, mode, true, owner);
}

/**
 * Atomic but not durable replacement (no fsync): for caches that check what they read, where a
 * power cut may leave an old or an empty file but never a half-written one passed off as whole.
 */
export function writeFileAtomic(path: string, data: string): FileStamp {
  return replaceFile(path, data, 0o600, false);
}

/**
 * The temp file that will replace `path`: `.<name>.acode-<owner>.<pid>.<n>.tmp` beside it (owner: the
 * session writing it), or `.<name>.acode.<pid>.<n>.tmp` for files no session owns (the index). A
 * process killed mid-write leaves it behind; the name says whose it is and which process made it,
 * so a resume removes exactly its own session's and never anyone else's.
 */
export function tempPathFor(path: string, owner?: string): string {
  return join(dirname(path), tempFileName(basename(path), owner));
}

/** The bare name of a fresh temp file beside the file called `name` (see tempPathFor). */
export function tempFileName(name: string, owner?: string): string {
  if (owner !== undefined && !/^[\w-]+$/.test(owner)) throw new Error(`temp file owner must be a plain word, not '${owner}'`);
  return `.${name}.acode${owner === undefined ? '' : `-${owner}`}.${process.pid}.${++counter}.tmp`;
}

/** An acode temp file's name, taken apart: the file it was to replace, its owner (if any) and the writer's pid. */
export interface TempName {
  target: string;
  owner: string | null;
  pid: number;
}

/** Parses a name made by tempPathFor (and, with `legacy`, the `.<name>.<pid>.<n>.tmp` of older versions, owner null). */
export function parseTempName(name: string, legacy = false): TempName | null {
  const current = /^\.(.+)\.acode(?:-([\w-]+))?\.(\d+)\.\d+\.tmp$/.exec(name);
  if (current) return { target: current[1]!, owner: current[2] ?? null, pid: Number(current[3]) };
  const old = legacy ? /^\.(.+)\.(\d+)\.\d+\.tmp$/.exec(name) : null;
  return old ? { target: old[1]!, owner: null, pid: Number(old[2]) } : null;
}

function replaceFile(path: string, data: string | Uint8Array, mode: number, durable: boolean, owner?: string): FileStamp {
  const dir = dirname(path);
  const temp = tempPathFor(path, owner);
  let fd: number;
  try {
    fd = openSync(temp, 'w', mode);
  } catch (error) {
    throw namingFile(error, path);
  }
  let stamp: FileStamp;
  try {
    // open() narrows the mode by the umask; set it exactly, so a replaced file keeps its permissions.
    if (mode !== 0o600) fchmodSync(fd, mode);
    writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
    if (durable) fdatasyncSync(fd);
    stamp = stampOfStats(fstatSync(fd));
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw namingFile(error, path);
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    // Never leave it behind (force: a resume that took the session over may have removed it already).
    rmSync(temp, { force: true });
    throw error;
  }
  if (durable) fsyncDirectory(dir);
  return stamp;
}
