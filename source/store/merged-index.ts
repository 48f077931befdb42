import { join } from 'node:path';
import { DurableJsonFileSync } from './durable-json-adapter.js';
import { fileStamp, sameStamp } from './file-mtime.js';
import { baseName, indexFiles, legacyIndexName, LogNotAFile, logName, readIndexLog, type IndexEntry, type IndexFiles, type IndexVersion, type LogRead } from './index-log.js';
import type { SessionSummary } from './session-record.js';

// The index as its base and logs make it (see index-log.ts): what listings and the browser read.

/** A base (index.<g>.json), or the index.json of an older acode (schemaVersion 1), read as one. */
export interface BaseFile {
  schemaVersion: 1 | 2;
  /** A base's generation (absent in index.json). */
  generation?: number;
  sessions: Record<string, SessionSummary>;
  /** session.json's mtime when each row was read: a live row is re-read only when its file changed. */
  mtimes?: Record<string, number>;
  /** The sessions folder's mtime when the rows were last reconciled with it (no session added or removed since, if unchanged). */
  sessions_mtime?: number;
}

/**
 * The index is acode's own cache, read on every listing of up to tens of thousands of rows: a
 * structural check per row (instead of a full schema parse) keeps the browser's first frame fast.
 * A row that fails it is re-read from its session file.
 */
export function parseBase(raw: unknown): BaseFile {
  const file = raw as Partial<BaseFile> | null;
  if (!file || (file.schemaVersion !== 1 && file.schemaVersion !== 2) || typeof file.sessions !== 'object' || file.sessions === null) throw new Error('the index has an unknown shape');
  return { schemaVersion: file.schemaVersion, sessions: file.sessions, mtimes: typeof file.mtimes === 'object' && file.mtimes ? file.mtimes : {}, sessions_mtime: typeof file.sessions_mtime === 'number' ? file.sessions_mtime : undefined };
}

/**
 * Applies one log entry. Entries come in the order they were appended, but a line appended again
 * after a compaction, or a log older than a base an older acode rebuilt, may come after a newer
 * row: a row replaces another only if it is not older.
 */
export function applyEntry(rows: Record<string, SessionSummary>, mtimes: Record<string, number>, entry: IndexEntry): void {
  if (entry.op === 'del') {
    delete rows[entry.id];
    delete mtimes[entry.id];
    return;
  }
  const current = rows[entry.id];
  if (current && current.updated_at > entry.row.updated_at) return;
  rows[entry.id] = entry.row;
  mtimes[entry.id] = entry.mtime;
}

/** The index as base and logs make it. */
export interface MergedIndex {
  files: IndexFiles;
  rows: Record<string, SessionSummary>;
  mtimes: Record<string, number>;
  sessionsMtime: number | undefined;
  /** False when the base or a log could not be read: the index is rebuilt from the session files. */
  trusted: boolean;
  version: IndexVersion;
  /** Log entries read: a compaction would fold them into a base. */
  entries: number;
}

/** A file named by the listing was removed before it was read: a compaction finished meanwhile. */
class Vanished extends Error {}

/** The base readers use: the highest generation, else an older acode's index.json, else none. */
export function currentBase(files: IndexFiles): { name: string; generation: number } | null {
  const generation = files.bases.at(-1);
  if (generation !== undefined) return { name: baseName(generation), generation };
  return files.legacy ? { name: legacyIndexName, generation: 0 } : null;
}

/** Files a compaction left behind when killed before removing them (or index.json beside a base): the next one removes them. */
export function leftovers(files: IndexFiles): boolean {
  const base = files.bases.at(-1);
  return base !== undefined && (files.legacy || files.bases.length > 1 || files.logs.some((g) => g < base));
}

function readMergedOnce(home: string): MergedIndex {
  const files = indexFiles(home);
  const base = currentBase(files);
  let file: BaseFile | null = null;
  let trusted = true;
  let stamp = null;
  if (base) {
    const path = join(home, base.name);
    const before = fileStamp(path);
    try {
      file = new DurableJsonFileSync(path, parseBase).read();
      if (!file) throw new Vanished();
      // A base is never rewritten in place (only index.json of an older acode is): a head names this exact file.
      if (sameStamp(before, fileStamp(path))) stamp = before;
    } catch (error) {
      if (error instanceof Vanished) throw error;
      trusted = false;
    }
  }
  const rows = file?.sessions ?? {};
  const mtimes = file?.mtimes ?? {};
  const from = base?.generation ?? 0;
  let through = { generation: from, offset: 0 };
  let entries = 0;
  for (const generation of files.logs.filter((g) => g >= from)) {
    let read: LogRead | null;
    try {
      read = readIndexLog(join(home, logName(generation)));
    } catch (error) {
      // A log that is a folder lost its lines: the rows are re-read from the sessions, as for a damaged base.
      if (!(error instanceof LogNotAFile)) throw error;
      trusted = false;
      continue;
    }
    if (!read) throw new Vanished();
    for (const entry of read.entries) applyEntry(rows, mtimes, entry);
    entries += read.entries.length;
    through = { generation, offset: read.end };
  }
  const version: IndexVersion = { base: base && stamp ? { name: base.name, stamp } : null, through };
  return { files, rows, mtimes, sessionsMtime: file?.sessions_mtime, trusted, version, entries };
}

/** Base and logs merged; read again when a compaction removed a file between the listing and the read. */
export function readMerged(home: string): MergedIndex {
  for (let attempt = 0; ; attempt++) {
    try {
      return readMergedOnce(home);
    } catch (error) {
      if (!(error instanceof Vanished) || attempt === 9) throw error instanceof Vanished ? new Error(`the session index in ${home} keeps changing while it is read`) : error;
    }
  }
}
