import { closeSync, constants, fdatasyncSync, fstatSync, openSync, readdirSync, readSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDirectory, namingFile } from './durable-file.js';
import type { FileStamp } from './file-mtime.js';
import { isObject } from './session-peek.js';
import type { SessionSummary } from './session-record.js';
import { plausibleRow } from './summary-rows.js';

/**
 * The index on disk, in ACODE_HOME:
 * - `index.<g>.json`, a base: every row as of generation g (the highest generation present is the one read);
 * - `index.<g>.jsonl`, a log: one line per change since, appended by whoever changed a session;
 * - `index.json`, the whole index as acode wrote it before logs (read as a base below every generation).
 * A change appends one line to the newest log: its cost does not grow with the store. A compaction
 * (session-index.ts) first creates the log of the next generation — appenders move to it — then
 * folds the older logs into a new base of that generation and removes what it replaces.
 */
export const legacyIndexName = 'index.json';
export const baseName = (generation: number) => `index.${generation}.json`;
export const logName = (generation: number) => `index.${generation}.jsonl`;
const basePattern = /^index\.(\d+)\.json$/;
const logPattern = /^index\.(\d+)\.jsonl$/;

/**
 * One version of the index, as a head written from it names it: the base read (its name and exact
 * stamp; null when there was none) and how far the logs were read — every log of a generation
 * below `through.generation` whole, that one up to `through.offset` bytes.
 */
export interface IndexVersion {
  base: { name: string; stamp: FileStamp } | null;
  through: { generation: number; offset: number };
}

/** The index files in a home: generations ascending. */
export interface IndexFiles {
  bases: number[];
  logs: number[];
  /** index.json of an older acode is there. */
  legacy: boolean;
}

/** Lists the index files of `home` (one readdir of a folder of a few entries). */
export function indexFiles(home: string): IndexFiles {
  const files: IndexFiles = { bases: [], logs: [], legacy: false };
  let names: string[];
  try {
    names = readdirSync(home);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return files;
    throw error;
  }
  for (const name of names) {
    const base = basePattern.exec(name);
    const log = logPattern.exec(name);
    if (base) files.bases.push(Number(base[1]));
    else if (log) files.logs.push(Number(log[1]));
    else if (name === legacyIndexName) files.legacy = true;
  }
  const ascending = (a: number, b: number) => a - b;
  files.bases.sort(ascending);
  files.logs.sort(ascending);
  return files;
}

/** The highest generation of any base or log (0 when there is none): appends go to its log. */
export const newestGeneration = (files: IndexFiles): number => Math.max(0, ...files.bases, ...files.logs);

/**
 * A short fingerprint of the index as it stands (names, sizes and times of its files), for a
 * poll that must notice any change cheaply.
 */
export function indexSignature(home: string): string {
  const files = indexFiles(home);
  const names = [...files.bases.map(baseName), ...files.logs.map(logName), ...(files.legacy ? [legacyIndexName] : [])];
  return names
    .map((name) => {
      try {
        const stat = statSync(join(home, name));
        return `${name}:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
      } catch {
        return name;
      }
    })
    .join(',');
}

/** What the index held for a row before an entry replaced it: enough to keep the head's figures. */
export interface PriorRow {
  status: SessionSummary['status'];
  cwd: string;
  damaged: boolean;
}

/**
 * One line of a log. `prior` is what the index held for the session before (null: no row, a new
 * session); it is absent when the writer did not know — a reader of the head then needs the rows.
 */
export type IndexEntry = { op: 'put'; id: string; row: SessionSummary; mtime: number; prior?: PriorRow | null } | { op: 'del'; id: string; prior?: PriorRow | null };

export const priorOf = (row: SessionSummary): PriorRow => ({ status: row.status, cwd: row.cwd, damaged: row.damaged !== null });

function plausiblePrior(prior: unknown): boolean {
  return prior === undefined || prior === null || (isObject(prior) && typeof prior.status === 'string' && typeof prior.cwd === 'string' && typeof prior.damaged === 'boolean');
}

/** A log line as acode writes it, checked without a schema; null for anything else (a torn line). */
function entryOf(line: string): IndexEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(value) || typeof value.id !== 'string' || !plausiblePrior(value.prior)) return null;
  if (value.op === 'put' && plausibleRow(value.row as SessionSummary | undefined, value.id) && typeof value.mtime === 'number') return value as IndexEntry;
  return value.op === 'del' ? (value as IndexEntry) : null;
}

/** Entries of one log from byte `from` on, and the byte after the last whole line read. */
export interface LogRead {
  entries: IndexEntry[];
  end: number;
}

/**
 * One of the index's log names is not a file (a folder made by hand, or by a tool that restored a
 * backup wrongly): its lines cannot be read nor appended to. The index is a cache: it is rebuilt
 * from the sessions, and the compaction that does so removes the folder (session-index.ts).
 */
export class LogNotAFile extends Error {
  constructor(readonly path: string) {
    super(`${path} is not a file`);
  }
}

/**
 * Reads a log from `from`; null when it is missing (a compaction removed it); LogNotAFile when it is a folder. Only lines ended by
 * a newline are read: a line being appended right now is left for the next reader, and a torn
 * one (its writer died) is skipped — every line starts on a fresh line, so it spoils no other.
 * A log shorter than `from` is not the one that offset was taken from: that is thrown.
 */
export function readIndexLog(path: string, from = 0): LogRead | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new LogNotAFile(path);
    const size = stats.size;
    if (size < from) throw new Error(`${path} is shorter than a reader saw it`);
    const bytes = Buffer.alloc(size - from);
    let read = 0;
    try {
      while (read < bytes.length) {
        const n = readSync(fd, bytes, read, bytes.length - read, from + read);
        if (n === 0) break;
        read += n;
      }
    } catch (error) {
      // A read names no file: the message must.
      throw namingFile(error, path);
    }
    const whole = bytes.subarray(0, read).lastIndexOf(10) + 1;
    const entries: IndexEntry[] = [];
    for (const line of bytes.subarray(0, whole).toString('utf8').split('\n')) {
      const entry = line ? entryOf(line) : null;
      if (entry) entries.push(entry);
    }
    return { entries, end: from + whole };
  } finally {
    closeSync(fd);
  }
}

const appendFlags = constants.O_WRONLY | constants.O_APPEND;

/** Opens log `generation` for appending, creating it when no log exists yet; null when it vanished or was just made by another. */
function openLog(home: string, generation: number, exists: boolean): number | null {
  const path = join(home, logName(generation));
  try {
    if (exists) return openSync(path, appendFlags);
    const fd = openSync(path, appendFlags | constants.O_CREAT | constants.O_EXCL, 0o600);
    fsyncDirectory(home); // the new log's name survives a power cut, as its lines will
    return fd;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EEXIST') return null;
    if (code === 'EISDIR') throw new LogNotAFile(path);
    throw namingFile(error, path);
  }
}

/**
 * Creates log `generation` only if it does not exist: the fence of a compaction. True when this
 * call made it; false when another process did (a compaction is already at work).
 */
export function createLog(home: string, generation: number): boolean {
  const fd = openLog(home, generation, false);
  if (fd === null) return false;
  closeSync(fd);
  return true;
}

/**
 * One record: a whole line in a single write (O_APPEND places it after every other appender's),
 * starting with a newline so that a line torn by a crash before it cannot swallow it. A short
 * write (a full disk) leaves a torn line, and the record is written whole again.
 */
function writeRecord(fd: number, record: Buffer, path: string): void {
  for (let tries = 0; ; tries++) {
    let written: number;
    try {
      written = writeSync(fd, record);
    } catch (error) {
      throw namingFile(error, path);
    }
    if (written === record.length) return;
    if (tries === 2) throw namingFile(Object.assign(new Error(`short write to ${path}`), { code: 'ENOSPC' }), path);
  }
}

/**
 * Appends `entry` to the newest log and makes it durable (fdatasync): O(1) whatever the size of
 * the store. If a compaction fenced that log meanwhile (a newer generation appeared), it may have
 * read the log before this line, so the line is appended again to the newest log: readers take a
 * repeated line as it comes, and this writer's later lines come after it. Returns the size of the
 * log written last, so that the caller can ask for a compaction when the log grows long.
 * `betweenOpenAndWrite` lets a test put a whole compaction where one can come.
 */
export function appendIndexEntry(home: string, entry: IndexEntry, betweenOpenAndWrite?: () => void): number {
  const record = Buffer.from(`\n${JSON.stringify(entry)}\n`);
  let size: number | null = null;
  for (let attempt = 0; attempt < 50; attempt++) {
    const files = indexFiles(home);
    const generation = newestGeneration(files);
    const fd = openLog(home, generation, files.logs.includes(generation));
    if (fd === null) continue; // a compaction removed it, or another appender made it: look again
    const path = join(home, logName(generation));
    try {
      betweenOpenAndWrite?.();
      writeRecord(fd, record, path);
      fdatasyncSync(fd);
      size = fstatSync(fd).size;
    } catch (error) {
      throw namingFile(error, path);
    } finally {
      closeSync(fd);
    }
    if (newestGeneration(indexFiles(home)) === generation) return size;
  }
  // Fenced at each of fifty tries (compactions back to back, never seen in practice): the line is in
  // a log, and only a compaction that read that log before it can have missed it.
  if (size !== null) return size;
  throw new Error(`cannot append to the session index in ${home}: its log ${logName(newestGeneration(indexFiles(home)))} cannot be opened; remove it (the index is rebuilt from the session folders)`);
}
