import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LowSync } from 'lowdb';
import { DurableJsonFileSync } from './durable-json-adapter.js';
import type { SessionSummary } from './session-record.js';

interface IndexFile {
  schemaVersion: 1;
  sessions: Record<string, SessionSummary>;
  /** session.json's mtime when each row was read: a live row is re-read only when its file changed. */
  mtimes?: Record<string, number>;
}

/**
 * The index is acode's own cache, read on every listing of up to tens of thousands of rows: a
 * structural check per row (instead of a full schema parse) keeps the browser's first frame fast.
 * A row that fails it is re-read from its session file.
 */
function parseIndex(raw: unknown): IndexFile {
  const file = raw as Partial<IndexFile> | null;
  if (!file || file.schemaVersion !== 1 || typeof file.sessions !== 'object' || file.sessions === null) throw new Error('index.json has an unknown shape');
  return { schemaVersion: 1, sessions: file.sessions, mtimes: typeof file.mtimes === 'object' && file.mtimes ? file.mtimes : {} };
}

function plausibleRow(row: SessionSummary | undefined, id: string): row is SessionSummary {
  return typeof row === 'object' && row !== null && row.session_id === id && typeof row.status === 'string' && typeof row.updated_at === 'string' && typeof row.tokens === 'object' && typeof row.variables === 'object';
}

/**
 * index.json: one summary row per session, so listing never opens every session file. It is a
 * cache: rows are reconciled with the sessions folder on read and the whole index is rebuilt
 * from session files when it is missing or damaged.
 */
export class SessionIndex {
  private readonly db: LowSync<IndexFile>;

  constructor(
    private readonly home: string,
    /** Reads one session's summary from its own files; undefined if it is gone. */
    private readonly loadSummary: (id: string) => SessionSummary | undefined,
  ) {
    this.db = new LowSync(new DurableJsonFileSync(join(home, 'index.json'), parseIndex), { schemaVersion: 1, sessions: {}, mtimes: {} });
  }

  private sessionIds(): string[] {
    const dir = join(this.home, 'sessions');
    return existsSync(dir) ? readdirSync(dir) : [];
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
    try {
      return statSync(join(this.home, 'sessions', id, 'session.json')).mtimeMs;
    } catch {
      return 0;
    }
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
      const live = !plausibleRow(row, id) || row.status === 'running' || row.status === 'created' || row.damaged !== null;
      if (!live) continue;
      const mtime = this.sessionMtime(id);
      if (plausibleRow(row, id) && mtimes[id] === mtime) continue;
      const fresh = this.loadSummary(id);
      if (!fresh) continue;
      rows[id] = fresh;
      mtimes[id] = mtime;
      changed = true;
    }
    if (changed && write) this.save(rows, mtimes);
    return Object.values(rows).sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
  }

  upsert(summary: SessionSummary): void {
    const { file } = this.load();
    file.sessions[summary.session_id] = summary;
    const mtimes = file.mtimes ?? {};
    mtimes[summary.session_id] = this.sessionMtime(summary.session_id);
    this.save(file.sessions, mtimes);
  }

  remove(id: string): void {
    const { file } = this.load();
    delete file.sessions[id];
    delete file.mtimes?.[id];
    this.save(file.sessions, file.mtimes ?? {});
  }

  private save(rows: Record<string, SessionSummary>, mtimes: Record<string, number>): void {
    this.db.data = { schemaVersion: 1, sessions: rows, mtimes };
    this.db.write();
  }
}
