import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LowSync } from 'lowdb';
import { z } from '../validation/z.js';
import { DurableJsonFileSync } from './durable-json-adapter.js';
import { sessionSummarySchema, type SessionSummary } from './session-record.js';

const indexSchema = z.object({ schemaVersion: z.literal(1), sessions: z.record(z.string(), sessionSummarySchema) });
type IndexFile = z.infer<typeof indexSchema>;

/**
 * index.json: one summary row per session, so listing never opens every session file. It is a
 * cache: rows are reconciled with the sessions folder on read and the whole index is rebuilt
 * from session files when it is missing or damaged.
 */
export class SessionIndex {
  private readonly db: LowSync<IndexFile>;

  constructor(
    private readonly home: string,
    /** Reads one session's summary from its own files; undefined if it is damaged. */
    private readonly loadSummary: (id: string) => SessionSummary | undefined,
  ) {
    this.db = new LowSync(new DurableJsonFileSync(join(home, 'index.json'), (raw) => indexSchema.parse(raw)), { schemaVersion: 1, sessions: {} });
  }

  private sessionIds(): string[] {
    const dir = join(this.home, 'sessions');
    return existsSync(dir) ? readdirSync(dir) : [];
  }

  private load(): { rows: Record<string, SessionSummary>; trusted: boolean } {
    try {
      this.db.read();
      return { rows: this.db.data.sessions, trusted: true };
    } catch {
      return { rows: {}, trusted: false };
    }
  }

  /**
   * All sessions, newest first. Rows for live sessions are refreshed from their own files, and the
   * refreshed index is saved unless `write` is false (dry runs change nothing on disk).
   */
  list(write = true): SessionSummary[] {
    const { rows, trusted } = this.load();
    let changed = !trusted;
    const ids = this.sessionIds();
    const present = new Set(ids);
    for (const id of Object.keys(rows)) {
      if (!present.has(id)) {
        delete rows[id];
        changed = true;
      }
    }
    for (const id of ids) {
      const row = rows[id];
      // Running rows change step by step without touching the index; re-read those few.
      if (!row || row.status === 'running' || row.status === 'created' || row.damaged) {
        const fresh = this.loadSummary(id);
        if (fresh && JSON.stringify(fresh) !== JSON.stringify(row)) {
          rows[id] = fresh;
          changed = true;
        }
      }
    }
    if (changed && write) this.save(rows);
    return Object.values(rows).sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
  }

  upsert(summary: SessionSummary): void {
    const { rows } = this.load();
    rows[summary.session_id] = summary;
    this.save(rows);
  }

  remove(id: string): void {
    const { rows } = this.load();
    delete rows[id];
    this.save(rows);
  }

  private save(rows: Record<string, SessionSummary>): void {
    this.db.data = { schemaVersion: 1, sessions: rows };
    this.db.write();
  }
}
