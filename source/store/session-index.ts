import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { redactKeepingOwnPaths } from '../secrets/event-redaction.js';
import { DurableJsonFileSync } from './durable-json-adapter.js';
import { mtimeOf } from './file-mtime.js';
import { writeIndexHead } from './index-head.js';
import { appendIndexEntry, baseName, createLog, indexFiles, legacyIndexName, LogNotAFile, logName, newestGeneration, priorOf, readIndexLog, type IndexEntry, type IndexVersion, type LogRead, type PriorRow } from './index-log.js';
import { applyEntry, currentBase, leftovers, parseBase, readMerged, type BaseFile, type MergedIndex } from './merged-index.js';
import { mayRunAhead, newestFirst, plausibleRow } from './summary-rows.js';
import type { SessionSummary } from './session-record.js';
import { isWriteRefused } from './write-access.js';

/** A row a listing re-reads from its session's files when they changed: live or damaged sessions. */
const isLive = (row: SessionSummary) => mayRunAhead(row.status) || row.damaged !== null;

/**
 * When a session's files last changed: its snapshot, or its log — which a run appends to between
 * the lazy snapshots, and a run killed between two of them leaves ahead of the last.
 */
export function filesMtime(sessionsDir: string, id: string): number {
  return Math.max(mtimeOf(join(sessionsDir, id, 'session.json')), mtimeOf(join(sessionsDir, id, 'events.jsonl')));
}

/** The index as it stands: its rows, and whether the sessions folder still agrees with them. */
export interface IndexView {
  /** Newest first. */
  rows: SessionSummary[];
  /** The version of the index these rows were read from (a head written from them names it). */
  version: IndexVersion;
  /**
   * True when no session was added or removed and no live row's session file changed since the
   * index was written: then reconciling (`SessionIndex.list`) would change nothing.
   */
  current(): boolean;
}

/**
 * Reads the index (base and logs) without looking at the sessions folder; null when it is
 * damaged. The browser's first frame is drawn from this when the head cannot serve it, and
 * reconciled right after when not current.
 */
export function readIndexView(home: string): IndexView | null {
  let merged: MergedIndex;
  try {
    merged = readMerged(home);
  } catch {
    return null;
  }
  if (!merged.trusted) return null;
  const entries = Object.entries(merged.rows);
  if (!entries.every(([id, row]) => plausibleRow(row, id))) return null;
  const rows = entries.map(([, row]) => row).sort(newestFirst);
  const { mtimes, sessionsMtime } = merged;
  const sessionsDir = join(home, 'sessions');
  return {
    rows,
    version: merged.version,
    current: () => sessionsMtime === mtimeOf(sessionsDir) && rows.every((row) => !isLive(row) || mtimes[row.session_id] === filesMtime(sessionsDir, row.session_id)),
  };
}

/** Past this size a log is folded into a base by the writer that grew it, if no listing did first. */
const defaultCompactAt = 4 * 1024 * 1024;

/**
 * The session index: one summary row per session, so listing never opens every session file. It
 * is a cache: rows are reconciled with the sessions folder on read and rebuilt from session files
 * when the index is missing or damaged. A change appends one line to a log (index-log.ts), so it
 * costs the same in a store of ten sessions or of a hundred thousand; a listing, which reads
 * every row anyway, folds the logs into a new base.
 */
export class SessionIndex {
  private readonly compactAt: number;

  constructor(
    private readonly home: string,
    /** Reads one session's summary from its own files; undefined if it is gone. */
    private readonly loadSummary: (id: string) => SessionSummary | undefined,
    options: { compactAt?: number; notify?: (message: string) => void } = {},
  ) {
    this.compactAt = options.compactAt ?? defaultCompactAt;
    this.notify = options.notify ?? (() => {});
  }

  /** Says what a listing repaired on disk (once: the repair is what makes it not happen again). */
  private readonly notify: (message: string) => void;

  private sessionIds(): string[] {
    const dir = join(this.home, 'sessions');
    // Hidden names are sessions still being created (session-store.ts createIn): not sessions yet.
    return existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith('.')) : [];
  }

  private sessionMtime(id: string): number {
    return filesMtime(join(this.home, 'sessions'), id);
  }

  /**
   * All sessions, newest first. Rows of live (created/running/awaiting) or damaged sessions are
   * re-read when their files changed; when anything changed, or logs hold entries, the index is
   * compacted into a new base unless `write` is false (dry runs change nothing on disk).
   */
  list(write = true): SessionSummary[] {
    const merged = readMerged(this.home);
    const { rows, mtimes } = merged;
    let changed = !merged.trusted;
    // Taken before the folder is read: a session created meanwhile changes it again.
    const sessionsMtime = mtimeOf(join(this.home, 'sessions'));
    if (sessionsMtime !== 0 && merged.sessionsMtime !== sessionsMtime) changed = true;
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
      rows[id] = redactKeepingOwnPaths(fresh);
      mtimes[id] = mtime;
      changed = true;
    }
    if (write && (changed || merged.entries > 0 || leftovers(merged.files))) {
      try {
        const saved = this.compact(merged, sessionsMtime);
        if (saved) return saved;
      } catch (error) {
        // The index is a cache: listing from a read-only (or full) home shows the rows without saving them.
        if (!isWriteRefused(error)) throw error;
      }
    }
    return Object.values(rows).sort(newestFirst);
  }

  /**
   * Records a session's new summary. `previous` is its row before, as its own files had it when
   * it was opened (null: a new session); the index head's readers use it to keep their figures
   * without reading every row. A created row is always a new session.
   */
  upsert(summary: SessionSummary, previous?: SessionSummary | null): void {
    const row = redactKeepingOwnPaths(summary);
    this.append({ op: 'put', id: row.session_id, row, mtime: this.sessionMtime(row.session_id), ...this.prior(previous === undefined && row.status === 'created' ? null : previous) });
  }

  /** Records that a session was deleted; `previous`, its row if known, as for upsert. */
  remove(id: string, previous?: SessionSummary | null): void {
    this.append({ op: 'del', id, ...this.prior(previous) });
  }

  private prior(previous: SessionSummary | null | undefined): { prior?: PriorRow | null } {
    if (previous === undefined) return {};
    return { prior: previous && priorOf(redactKeepingOwnPaths(previous)) };
  }

  private append(entry: IndexEntry): void {
    let size: number;
    try {
      size = appendIndexEntry(this.home, entry);
    } catch (error) {
      if (!(error instanceof LogNotAFile)) throw error;
      // The newest log is a folder: a listing rebuilds the index in a new generation, removes the folder, and says so.
      this.list(true);
      size = appendIndexEntry(this.home, entry);
    }
    if (size < this.compactAt) return;
    // Nobody listed for a long while: this writer folds the log, once per compactAt bytes of it.
    try {
      this.list(true);
    } catch {
      // A cache that could not be compacted now is compacted by the next listing.
    }
  }

  /**
   * Writes `merged` (reconciled) as the base of a new generation: the new log is created first, so
   * appenders move to it; lines appended to the older logs since they were read are read now; then
   * the base is written (atomically, durably), its head, and the files it replaces are removed.
   * Null when another compaction is at work or finished meanwhile: its base stands, this one is not
   * needed. A kill at any instant leaves the old base and logs, or the new base (and stale files a
   * later compaction removes).
   */
  private compact(merged: MergedIndex, sessionsMtime: number): SessionSummary[] | null {
    const { home } = this;
    const next = newestGeneration(indexFiles(home)) + 1;
    if (!createLog(home, next)) return null;
    const files = indexFiles(home);
    if (currentBase(files)?.name !== currentBase(merged.files)?.name) return null;
    const { rows, mtimes, version } = merged;
    for (const generation of files.logs.filter((g) => g >= version.through.generation && g < next)) {
      let read: LogRead | null;
      try {
        read = readIndexLog(join(home, logName(generation)), generation === version.through.generation ? version.through.offset : 0);
      } catch (error) {
        // A folder in a log's place: the rows were reconciled with the sessions instead (readMerged), and it goes below.
        if (error instanceof LogNotAFile) continue;
        throw error;
      }
      if (!read) return null; // folded by a compaction that finished meanwhile
      for (const entry of read.entries) applyEntry(rows, mtimes, entry);
    }
    // Rows were redacted as they entered (upsert, a row re-read above): the base is written as it is.
    const adapter = new DurableJsonFileSync<BaseFile>(join(home, baseName(next)), parseBase, undefined, (file) => JSON.stringify(file));
    adapter.write({ schemaVersion: 2, generation: next, sessions: rows, mtimes, sessions_mtime: sessionsMtime || undefined });
    const sorted = Object.values(rows).sort(newestFirst);
    // A compaction that began after this one and finished first wrote the head of a newer base: keep it.
    if (indexFiles(home).bases.at(-1) === next) writeIndexHead(home, sorted, { base: { name: baseName(next), stamp: adapter.lastWrite! }, through: { generation: next, offset: 0 } });
    const replaced = [...files.bases.filter((g) => g < next).map(baseName), ...files.logs.filter((g) => g < next).map(logName), ...(files.legacy ? [legacyIndexName] : [])];
    for (const name of replaced) this.removeReplaced(name);
    return sorted;
  }

  /**
   * Removes a file the new base replaces. One of acode's own index names that is a folder (made
   * by hand, or by a tool that restored a backup wrongly) was read as a damaged base and rebuilt
   * from the sessions, but could not be removed: every listing failed with EISDIR after writing one
   * more generation. The name is acode's: the folder goes, and the repair is said once.
   */
  private removeReplaced(name: string): void {
    const path = join(this.home, name);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return;
    if (stats.isFile() || stats.isSymbolicLink()) {
      rmSync(path, { force: true });
      return;
    }
    rmSync(path, { recursive: true, force: true });
    this.notify(`the session index had a folder named ${name} in ${this.home}, where acode keeps a file; rebuilt the index from the sessions and removed the folder`);
  }
}
