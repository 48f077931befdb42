import { closeSync, constants, existsSync, fchmodSync, fdatasyncSync, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, unlinkSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { writeAll } from '../../store/durable-file.js';
import { inside, outsideError, ToolInputError } from './confined-path.js';

/*
 * File access that stays beneath the folders tools may touch even while someone swaps a folder on
 * the path for a symlink to elsewhere. confinedPath checks a path once, by name; between that check
 * and the open, `sub/` can become a link to /etc. So every open here is checked afterwards on the
 * descriptor itself: Linux names what an fd really is in /proc/self/fd/<fd>, and what is read or
 * written is only ever that fd, or a name inside a checked directory fd
 * (`/proc/self/fd/<dirfd>/<name>`, the kernel's openat) whose last component is never followed
 * unless the link's target is checked too. Without /proc (macOS) the same checks run on
 * realpath(name): weaker, since a swap between the open and the realpath goes unseen.
 */

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_TRUNC } = constants;
/** Not everywhere (Windows): there, plain opens and the realpath checks. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
/** A FIFO planted in the folder must not hang the read: opens return at once, and non-files are refused. */
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** The real paths of the folders tools may touch (the working directory and each existing mount). */
export interface Confinement {
  cwd: string;
  roots: readonly string[];
  /** Whether the spec has env.mounts (the refusal says so). */
  mounts: boolean;
}

/** Where a tool call may read and write: cwd and env.mounts, by real path (taken per call: a mount may appear later). */
export function confinement(cwd: string, extraRoots: readonly string[]): Confinement {
  const roots = [cwd, ...extraRoots.map((root) => resolve(cwd, root))].filter((root) => existsSync(root)).map((root) => realpathSync(root));
  return { cwd, roots, mounts: extraRoots.length > 0 };
}

/** An open directory whose real path was checked; `path` is the name it was asked for. */
export interface CheckedDir {
  fd: number;
  path: string;
}

let procFd: boolean | undefined;
/** Whether /proc/self/fd names descriptors (Linux), checked once on the root directory. */
function hasProcFd(): boolean {
  if (procFd === undefined) {
    try {
      const fd = openSync('/', O_RDONLY | O_DIRECTORY);
      try {
        procFd = readlinkSync(`/proc/self/fd/${fd}`) === '/';
      } finally {
        closeSync(fd);
      }
    } catch {
      procFd = false;
    }
  }
  return procFd;
}

/** The name of `name` inside exactly the directory `dir` is open on, wherever that folder is now. */
function at(dir: CheckedDir, name: string): string {
  return hasProcFd() ? `/proc/self/fd/${dir.fd}/${name}` : join(dir.path, name);
}

/** What `fd` is really open on: the kernel's answer on Linux, else realpath of the name it was opened by. */
function realPathOf(fd: number, openedAs: string): string {
  return hasProcFd() ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync(openedAs);
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

function shown(where: Confinement, path: string): string {
  const rel = relative(where.cwd, path);
  return rel === '' ? '.' : inside(path, where.cwd) ? rel : path;
}

/** Throws unless `fd` really lies inside one of the roots. */
function assertInside(fd: number, openedAs: string, where: Confinement, path: string): void {
  const real = realPathOf(fd, openedAs);
  if (!where.roots.some((root) => inside(real, root))) throw outsideError(shown(where, path), where.cwd, where.mounts);
}

/** Opens `openAs` and keeps the descriptor only if it really lies inside a root (`path` names it in errors). */
function openChecked(openAs: string, flags: number, where: Confinement, path: string): number {
  const fd = openSync(openAs, flags);
  try {
    assertInside(fd, openAs, where, path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** Reads a whole file from inside the roots; null when there is no such file. */
export function readFileBeneath(path: string, where: Confinement): Buffer | null {
  let fd: number;
  try {
    fd = openChecked(path, O_RDONLY | O_NONBLOCK, where, path);
  } catch (error) {
    if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR') return null;
    throw error;
  }
  try {
    return readRegular(fd, fstatSync(fd), where, path);
  } finally {
    closeSync(fd);
  }
}

function readRegular(fd: number, stats: Stats, where: Confinement, path: string): Buffer {
  if (stats.isDirectory()) throw new ToolInputError(`${shown(where, path)} is a directory`);
  if (!stats.isFile()) throw new ToolInputError(`${shown(where, path)} is not a regular file`);
  return readFileSync(fd);
}

/** A file found by {@link filesBeneath}; `read` works only until the walk moves on. */
export interface FoundFile {
  path: string;
  /** Its content, or null if it vanished or stopped being a plain file since it was listed. */
  read(): Buffer | null;
}

/**
 * The file at `path`, or every plain file under the folder at `path` (skipping names `skip`
 * refuses), walked through checked directory descriptors: symlinks are never followed inside the
 * walk, and a folder swapped away mid-walk keeps being read as the folder it was when opened.
 */
export function* filesBeneath(path: string, where: Confinement, skip: (name: string) => boolean): Generator<FoundFile> {
  const fd = openChecked(path, O_RDONLY | O_NONBLOCK, where, path);
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) yield* filesIn({ fd, path }, where, skip);
    else yield { path, read: () => readRegular(fd, stats, where, path) };
  } finally {
    closeSync(fd);
  }
}

function* filesIn(dir: CheckedDir, where: Confinement, skip: (name: string) => boolean): Generator<FoundFile> {
  for (const entry of readdirSync(hasProcFd() ? `/proc/self/fd/${dir.fd}` : dir.path, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const path = join(dir.path, entry.name);
    if (entry.isDirectory()) {
      const fd = openEntry(dir, entry.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, where, path);
      if (fd === null) continue;
      try {
        yield* filesIn({ fd, path }, where, skip);
      } finally {
        closeSync(fd);
      }
    } else if (entry.isFile()) {
      yield { path, read: () => readEntry(dir, entry.name, where, path) };
    }
  }
}

/** Opens an entry of a walked folder without following it; null when it is gone, a link now, or elsewhere. */
function openEntry(dir: CheckedDir, name: string, flags: number, where: Confinement, path: string): number | null {
  try {
    return openChecked(at(dir, name), flags, where, path);
  } catch (error) {
    if (error instanceof ToolInputError || ['ENOENT', 'ENOTDIR', 'ELOOP'].includes(code(error) ?? '')) return null;
    throw error;
  }
}

function readEntry(dir: CheckedDir, name: string, where: Confinement, path: string): Buffer | null {
  const fd = openEntry(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, where, path);
  if (fd === null) return null;
  try {
    const stats = fstatSync(fd);
    return stats.isFile() ? readFileSync(fd) : null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens the folder at `path` and checks where it really is; with `create`, makes the missing
 * folders one at a time, each inside its parent's checked descriptor (as mkdir -p would, but a
 * parent swapped for a link mid-way is caught instead of followed outside).
 */
export function openDirBeneath(path: string, where: Confinement, create: boolean): CheckedDir {
  try {
    return { fd: openChecked(path, O_RDONLY | O_DIRECTORY, where, path), path };
  } catch (error) {
    if (!create || code(error) !== 'ENOENT' || dirname(path) === path) throw error;
  }
  const parent = openDirBeneath(dirname(path), where, true);
  try {
    const name = basename(path);
    try {
      mkdirSync(at(parent, name));
    } catch (error) {
      if (code(error) !== 'EEXIST') throw error;
    }
    return { fd: openChecked(at(parent, name), O_RDONLY | O_DIRECTORY, where, path), path };
  } finally {
    closeSync(parent.fd);
  }
}

/** Where a write lands: a name inside a checked folder. Close `dir.fd` when done. */
export interface WritePlace {
  dir: CheckedDir;
  name: string;
}

/**
 * The place to write `target`, making missing folders. A final symlink is written through (the
 * file it points to is replaced, keeping the link) only when its target checks inside the roots;
 * a dangling one is replaced itself, as a plain rename would.
 */
export function openWritePlace(target: string, where: Confinement): WritePlace {
  const dir = openDirBeneath(dirname(target), where, true);
  const name = basename(target);
  let real: string;
  try {
    if (!lstatSync(at(dir, name)).isSymbolicLink()) return { dir, name };
    const fd = openChecked(at(dir, name), O_RDONLY | O_NONBLOCK, where, target);
    try {
      real = realPathOf(fd, at(dir, name));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (code(error) === 'ENOENT') return { dir, name };
    closeSync(dir.fd);
    throw error;
  }
  closeSync(dir.fd);
  return { dir: openDirBeneath(dirname(real), where, false), name: basename(real) };
}

export interface ReplaceOptions {
  /** The temp file's name beside the target (the caller names temp files, so it can find its own). */
  tempName: string;
  /** Runs after the new content is durable and just before the rename: the last moment to refuse. */
  beforeRename?: () => void;
}

/**
 * Crash-atomic replacement inside a checked folder: temp file created there (never through a
 * link) → its real path checked → fdatasync → rename onto the name → fsync the folder. An existing
 * file's permissions are kept; a new one gets the umask's.
 */
export function replaceBeneath(place: WritePlace, data: Uint8Array, where: Confinement, options: ReplaceOptions): void {
  const temp = at(place.dir, options.tempName);
  const path = join(place.dir.path, place.name);
  let mode: number | undefined;
  try {
    const stats = lstatSync(at(place.dir, place.name));
    if (stats.isFile()) mode = stats.mode & 0o7777;
  } catch (error) {
    if (code(error) !== 'ENOENT') throw error;
  }
  const fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o666);
  try {
    // open() narrows the mode by the umask; set it exactly, so a replaced file keeps its permissions.
    if (mode !== undefined) fchmodSync(fd, mode);
    writeAll(fd, data);
    fdatasyncSync(fd);
    assertInside(fd, temp, where, path);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw error;
  }
  closeSync(fd);
  try {
    options.beforeRename?.();
    renameSync(temp, at(place.dir, place.name));
  } catch (error) {
    unlinkQuietly(temp);
    throw error;
  }
  fsyncSync(place.dir.fd);
}

/** Opens the place's entry for an in-place write without following a link (the scripted torn write). */
export function openInPlace(place: WritePlace): number {
  return openSync(at(place.dir, place.name), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o666);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // the temp file is gone already; nothing to clean
  }
}
