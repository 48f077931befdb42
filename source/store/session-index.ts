import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LowSync } from 'lowdb';
import { secrets } from '../secrets/redactor.js';
import { DurableJsonFileSync } from './durable-json-adapter.js';
import { fileStamp, mtimeOf, sameStamp, type FileStamp } from './file-mtime.js';
import { writeIndexHead } from './index-head.js';
import { isLiveStatus, newestFirst, plausibleRow } from './summary-rows.js';
import type { SessionSummary } from './session-record.js';
import { isWriteRefused } from './write-access.js';

interface IndexFile {
  schemaVersion: 1;
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
function parseIndex(raw: unknown): IndexFile {
  const file = raw as Partial<IndexFile> | null;
  if (!file || file.schemaVersion !== 1 || typeof file.sessions !== 'object' || file.sessions === null) throw new Error('index.json has an unknown shape');
  return { schemaVersion: 1, sessions: file.sessions, mtimes: typeof file.mtimes === 'object' && file.mtimes ? file.mtimes : {}, sessions_mtime: typeof file.sessions_mtime === 'number' ? file.sessions_mtime : undefined };
}

/** A row a listing re-reads from its session file when that file changed: live or damaged sessions. */
const isLive = (row: SessionSummary) => isLiveStatus(row.status) || row.damaged !== null;


/** The index as it stands: its rows, and whether the sessions folder still agrees with them. */
export interface IndexView {
  /** Newest first. */
  rows: SessionSummary[];
  /** The version of index.json these rows were read from (null if it changed while being read). */
  stamp: FileStamp | null;
  /**
   * True when no session was added or removed and no live row's session file changed since the
   * index was written: then reconciling (`SessionIndex.list`) would change nothing.
   */
  current(): boolean;
}

/**
 * Reads the index without looking at the sessions folder; null when it is missing or damaged.
 * The browser's first frame is drawn from this, and reconciled right after when not current.
 */
export function readIndexView(home: string): IndexView | null {
  const path = join(home, 'index.json');
  const before = fileStamp(path);
  let file: IndexFile | null;
  try {
    file = new DurableJsonFileSync(path, parseIndex).read();
  } catch {
    return null;
  }
  const stamp = sameStamp(before, fileStamp(path)) ? before : null;
  if (!file) return null;
  const entries = Object.entries(file.sessions);
  if (!entries.every(([id, row]) => plausibleRow(row, id))) return null;
  const rows = entries.map(([, row]) => row).sort(newestFirst);
  const { mtimes = {}, sessions_mtime: sessionsMtime } = file;
  const sessionsDir = join(home, 'sessions');
  return {
    rows,
    stamp,
    current: () => sessionsMtime === mtimeOf(sessionsDir) && rows.every((row) => !isLive(row) || mtimes[row.session_id] === mtimeOf(join(sessionsDir, row.session_id, 'session.json'))),
  };
}

/**
 * index.json: one summary row per session, so listing never opens every session file. It is a
 * cache: rows are reconciled with the sessions folder on read and the whole index is rebuilt
 * from session files when it is missing or damaged.
 */
export class SessionIndex {
  private readonly adapter: DurableJsonFileSync<IndexFile>;
  private readonly db: LowSync<IndexFile>;

  constructor(
    private readonly home: string,
    /** Reads one session's summary from its own files; undefined if it is gone. */
    private readonly loadSummary: (id: string) => SessionSummary | undefined,
  ) {
    // Each row passes the redactor as it enters (upsert, a row re-read in list): redacting the whole
    // file on every write would cost time in proportion to the store, for rows already clean.
    this.adapter = new DurableJsonFileSync(join(home, 'index.json'), parseIndex, undefined, (file) => JSON.stringify(file));
    this.db = new LowSync(this.adapter, { schemaVersion: 1, sessions: {}, mtimes: {} });
  }

  private sessionIds(): string[] {
    const dir = join(this.home, 'sessions');
    // Hidden names are sessions still being created (session-store.ts createIn): not sessions yet.
    return existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith('.')) : [];
  }

  private load(): { file: IndexFile; trusted: boolean } {
    try {
      this.db.read();
      return { file: this.db.data, trusted: true };
    } catch {
      return { file: { schemaVersion: 1, sessions: {}, mtimes: {} }, trusted: false };
    }
  }

  private sessionMtime(id: string): number {
    return mtimeOf(join(this.home, 'sessions', id, 'session.json'));
  }

  /**
   * All sessions, newest first. Rows of live (created/running) or damaged sessions are re-read
   * when their session.json changed, and the refreshed index is saved unless `write` is false
   * (dry runs change nothing on disk).
   */
  list(write = true): SessionSummary[] {
    const { file, trusted } = this.load();
    const rows = file.sessions;
    const mtimes = file.mtimes ?? {};
    let changed = !trusted;
    // Taken before the folder is read: a session created meanwhile changes it again.
    const sessionsMtime = mtimeOf(join(this.home, 'sessions'));
    if (sessionsMtime !== 0 && file.sessions_mtime !== sessionsMtime) changed = true;
    const ids = this.sessionIds();
    const present = new Set(ids);
    for (const id of Object.keys(rows)) {
      if (!present.has(id)) {
        delete rows[id];
        delete mtimes[id];
        changed = true;
      }
    }
    for (const id of ids) {
      const row = rows[id];
      if (plausibleRow(row, id) && !isLive(row)) continue;
      const mtime = this.sessionMtime(id);
      if (plausibleRow(row, id) && mtimes[id] === mtime) continue;
      const fresh = this.loadSummary(id);
      if (!fresh) continue;
      rows[id] = secrets.redactDeep(fresh);
      mtimes[id] = mtime;
      changed = true;
    }
    if (changed && write) {
      try {
        return this.save(rows, mtimes, sessionsMtime);
      } catch (error) {
        // The index is a cache: listing from a read-only (or full) home shows the rows without saving them.
        if (!isWriteRefused(error)) throw error;
      }
    }
    return Object.values(rows).sort(newestFirst);
  }

  upsert(summary: SessionSummary): void {
    const { file } = this.load();
    file.sessions[summary.session_id] = secrets.redactDeep(summary);
    const mtimes = file.mtimes ?? {};
    mtimes[summary.session_id] = this.sessionMtime(summary.session_id);
    this.save(file.sessions, mtimes, file.sessions_mtime);
  }

  remove(id: string): void {
    const { file } = this.load();
    delete file.sessions[id];
    delete file.mtimes?.[id];
    this.save(file.sessions, file.mtimes ?? {}, file.sessions_mtime);
  }

  /**
   * Writes the index, then its head (the browser's first frame); returns the rows newest first.
   * `sessionsMtime` is kept only by a reconciling listing: rows written one at a time vouch for no other session.
   */
  private save(rows: Record<string, SessionSummary>, mtimes: Record<string, number>, sessionsMtime: number | undefined): SessionSummary[] {
    this.db.data = { schemaVersion: 1, sessions: rows, mtimes, sessions_mtime: sessionsMtime };
    this.db.write();
    const sorted = Object.values(rows).sort(newestFirst);
    writeIndexHead(this.home, sorted, this.adapter.lastWrite!);
    return sorted;
  }
}
