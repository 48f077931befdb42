import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { makeFolders } from '../engine/make-folders.js';
import { dirname, join } from 'node:path';
import { LowSync } from 'lowdb';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { specSchema, type WorkflowSpec } from '../spec/schema.js';
import { diskFull } from '../engine/disk-full.js';
import type { EngineEvent } from '../engine/events.js';
import { initialProgress, toCheckpoint } from '../engine/session-progress.js';
import { allowOwnPaths, redactSessionRecord } from '../secrets/event-redaction.js';
import { DurableJsonFileSync } from './durable-json-adapter.js';
import { processAlive } from './process-liveness.js';
import { writeFileDurable, fsyncDirectory, namingFile } from './durable-file.js';
import { readEventLog, type FileSync } from './event-log.js';
import { SessionIndex } from './session-index.js';
import { SessionNames } from './session-names.js';
import { isSessionName } from '../session/session-name.js';
import { didYouMean } from '../closest-name.js';
import { FileBlobStore } from './file-blob-store.js';
import { rolledForward } from './log-tail.js';
import { SessionJournal } from './session-journal.js';
import { SessionLock, type LockState } from './session-lock.js';
import { removeLeftoverTempFiles } from './temp-files.js';
import { requireWritable } from './write-access.js';
import { damagedSummary, sessionRecordSchema, sessionSchemaVersion, summarize, type SessionRecord, type SessionSummary } from './session-record.js';

export type NewSession = Omit<SessionRecord, 'schemaVersion' | 'session_id' | 'created_at' | 'updated_at' | 'checkpoint'> & {
  specText: string;
  /** The validated spec: resume reads it back without parsing YAML again. */
  spec: WorkflowSpec;
  stepsTotal: number;
};

/** Every file of a session brought from elsewhere (the team store): see SessionStore.adopt. */
export interface AdoptedSession {
  record: SessionRecord;
  specYaml: Uint8Array;
  specJson: Uint8Array;
  events: readonly EngineEvent[];
  blobs: ReadonlyMap<string, Uint8Array>;
  /** The highest lock epoch its events carry: the session's epoch mark here. */
  epoch: number;
  /** Other files of its folder, by name (the sync cursor). */
  extra?: Record<string, string>;
}

/** One session folder: its record (lowdb, durable adapter), spec snapshot and event log. */
export class SessionHandle {
  constructor(
    readonly dir: string,
    readonly db: LowSync<SessionRecord>,
    private readonly index: SessionIndex,
  ) {}

  get record(): SessionRecord {
    return this.db.data;
  }

  /** Refuses (naming the folder) when this session cannot be written: its folder, or the home that holds the index. */
  requireWritable(action: string): void {
    requireWritable([dirname(dirname(this.dir)), this.dir], action);
  }

  /** A file of the session's own; a missing or unreadable one is a damaged session, said so. */
  private readOwn(name: string): string {
    const path = join(this.dir, name);
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      const id = this.record.session_id;
      const code = (error as NodeJS.ErrnoException).code;
      throw new AcodeError(
        `session ${id} is damaged: ${path} ${code === 'ENOENT' ? 'is missing' : `cannot be read (${code ?? (error as Error).message})`}. Restore it from a backup, or run the workflow again with 'acode run ${this.record.spec_path}' and delete this session with 'acode sessions delete ${id} --force'`,
        ExitCode.failure,
        'ACODE-RESUME-005',
      );
    }
  }

  specText(): string {
    return this.readOwn('spec.yaml');
  }

  /** Replaces the spec this session runs (a limit raised on resume), durably; the caller holds the session's lease. */
  replaceSpec(spec: WorkflowSpec): void {
    writeFileDurable(join(this.dir, 'spec.json'), JSON.stringify(spec), 0o600, this.record.session_id);
  }

  /** The spec this session runs, as validated when it was created. */
  spec(): WorkflowSpec {
    const path = join(this.dir, 'spec.json');
    let raw: unknown;
    try {
      raw = JSON.parse(this.readOwn('spec.json'));
    } catch (error) {
      if (error instanceof AcodeError) throw error;
      raw = undefined;
    }
    const parsed = specSchema.safeParse(raw);
    if (!parsed.success) {
      throw new AcodeError(`session ${this.record.session_id} is damaged: ${path} is not a valid spec (${parsed.error.issues[0]?.message}); fork or delete the session`, ExitCode.failure, 'ACODE-RESUME-005');
    }
    return parsed.data;
  }

  events(): EngineEvent[] {
    return readEventLog(join(this.dir, 'events.jsonl'));
  }

  /** Snapshots of the files the session read and wrote. */
  blobs(): FileBlobStore {
    return new FileBlobStore(join(this.dir, 'blobs'), this.record.session_id);
  }

  /**
   * Removes the temp files earlier runs of this session left when killed mid-write, in its folder,
   * in `workDirs` (where it wrote) and, for the index, in the home. Only with the lock held.
   */
  removeLeftoverTempFiles(workDirs: Iterable<string>): string[] {
    // The session folder is <home>/sessions/<id>.
    return removeLeftoverTempFiles({ sessionId: this.record.session_id, home: dirname(dirname(this.dir)), sessionDir: this.dir, workDirs });
  }

  /** Opens the session for appending events and writing checkpoints (`fileSync`: tests record the syncs). */
  openJournal(options: { fileSync?: FileSync } = {}): SessionJournal {
    // Each change tells the index the row it replaces (as this session's file had it when opened),
    // so that readers of the index head keep their figures without reading every row.
    let indexed = summarize(this.record);
    return new SessionJournal(this.dir, this.db, (record) => {
      const row = summarize(record);
      this.index.upsert(row, indexed);
      indexed = row;
    }, options);
  }
}

const idPattern = /^[0-9a-f]{16}$/;

/** The session.json of the session folder `dir`: validated when read, redacted when written. */
function sessionFileIn(dir: string, id: string): DurableJsonFileSync<SessionRecord> {
  return new DurableJsonFileSync(join(dir, 'session.json'), (raw) => allowOwnPaths(sessionRecordSchema.parse(raw)), id, (record) => JSON.stringify(redactSessionRecord(record)));
}

/** ACODE_HOME and its sessions folder, where they exist, must be folders: checked before any command reads or writes. */
function requireFolders(...dirs: string[]): void {
  for (const dir of dirs) {
    let stat;
    try {
      stat = statSync(dir);
    } catch {
      continue; // missing (made on first use) or unreadable (reported where it is read)
    }
    if (!stat.isDirectory()) {
      throw new AcodeError(`${dir} is a file, but acode keeps its sessions in a folder there; move that file away, or set ACODE_HOME to another folder`, ExitCode.failure);
    }
  }
}

/** The session repository: the only code that knows how sessions are laid out on disk. */
export class SessionStore {
  readonly sessionsDir: string;
  private readonly index: SessionIndex;
  private readonly names: SessionNames;

  /** `notify` hears what a listing repaired in the index (index files replaced by folders). */
  constructor(
    readonly home: string,
    notify?: (message: string) => void,
  ) {
    this.sessionsDir = join(home, 'sessions');
    requireFolders(home, this.sessionsDir);
    this.index = new SessionIndex(home, (id) => this.summaryOf(id), { notify });
    this.names = new SessionNames(home, (id) => idPattern.test(id) && existsSync(join(this.sessionsDir, id)));
  }

  /** A session's row from its own files: damaged when session.json cannot be read; undefined when the folder is gone. */
  private summaryOf(id: string): SessionSummary | undefined {
    try {
      const record = this.readRecord(id);
      // The snapshot is lazy: a running (or killed) session's log may be ahead of it.
      const checkpoint = rolledForward(join(this.sessionsDir, id), record.checkpoint);
      return summarize(checkpoint === record.checkpoint ? record : { ...record, checkpoint, updated_at: checkpoint.last_event_at ?? record.updated_at });
    } catch (error) {
      const dir = join(this.sessionsDir, id);
      if (!existsSync(dir)) return undefined;
      const reason = error instanceof SyntaxError ? 'session.json is not valid JSON' : (error as Error).name === 'ZodError' ? 'session.json does not match the session format' : 'session.json cannot be read';
      return damagedSummary(id, reason, statSync(dir).mtime.toISOString());
    }
  }

  private adapterFor(id: string): DurableJsonFileSync<SessionRecord> {
    return sessionFileIn(join(this.sessionsDir, id), id);
  }

  private readRecord(id: string): SessionRecord {
    const record = this.adapterFor(id).read();
    if (!record) throw new Error(`session ${id} has no session.json`);
    return record;
  }

  /** A new session folder, whole or not at all: a full disk halfway through leaves nothing behind. */
  create(init: NewSession): SessionHandle {
    const id = randomBytes(8).toString('hex');
    try {
      return this.createIn(id, init);
    } catch (error) {
      const full = diskFull(error);
      if (!full) throw error;
      rmSync(join(this.sessionsDir, id), { recursive: true, force: true });
      throw new AcodeError(`disk full writing ${full.path ?? join(this.sessionsDir, id)}; free space, then run the workflow again (no session was created)`, ExitCode.failure);
    }
  }

  /**
   * The folder is filled under a hidden name (`.<id>.creating.<pid>`, never listed) and renamed
   * into place whole, so a kill at any instant leaves either no session or a complete one — never a
   * folder without its session.json, listed as damaged for good. Hidden folders a killed creator left
   * are removed by the next listing (which reads the folder anyway: a creation must not, its cost
   * would grow with the store).
   */
  private createIn(id: string, init: NewSession): SessionHandle {
    const { specText, spec, stepsTotal, ...fields } = init;
    const dir = join(this.sessionsDir, id);
    const building = join(this.sessionsDir, `.${id}.creating.${process.pid}`);
    const now = new Date().toISOString();
    const record: SessionRecord = { schemaVersion: sessionSchemaVersion, session_id: id, created_at: now, updated_at: now, ...fields, checkpoint: toCheckpoint(initialProgress(stepsTotal)) };
    // The name first: a session never exists under a name another session holds.
    if (record.name !== undefined) this.names.claim(record.name, id);
    try {
      makeFolders(building, 0o700);
      writeFileDurable(join(building, 'spec.yaml'), specText, 0o600, id);
      writeFileDurable(join(building, 'spec.json'), JSON.stringify(spec), 0o600, id);
      writeFileDurable(join(building, 'events.jsonl'), '', 0o600, id);
      sessionFileIn(building, id).write(record);
      renameSync(building, dir);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (record.name !== undefined) this.names.release(record.name, id);
      throw error;
    }
    fsyncDirectory(this.sessionsDir);
    const db = new LowSync(this.adapterFor(id), record);
    this.index.upsert(summarize(db.data));
    return new SessionHandle(dir, db, this.index);
  }

  /**
   * A session brought from elsewhere (pulled from the team store), written as createIn writes a new
   * one: filled under a hidden name and renamed into place whole, so a kill at any instant leaves
   * the session as it was here (or absent) — never half of it. An existing folder of that id
   * (`replace`: the store holds more of it than this machine) is swapped out by a rename, then
   * removed. Its name goes with it unless another session here has that name (then it has none,
   * said in the answer). Events are written as the log holds them: one JSON line each.
   */
  adopt(files: AdoptedSession, replace: boolean): { droppedName?: string } {
    const id = files.record.session_id;
    if (!idPattern.test(id)) throw new AcodeError(`'${id}' is not a session id`, ExitCode.failure, 'ACODE-RESUME-005');
    const dir = join(this.sessionsDir, id);
    const previous = replace ? this.summaryOf(id) : undefined;
    let record = files.record;
    let droppedName: string | undefined;
    if (record.name !== undefined && this.names.lookup(record.name) !== id) {
      try {
        this.names.claim(record.name, id);
      } catch (error) {
        if (!(error instanceof AcodeError)) throw error;
        droppedName = record.name;
        const { name: _name, ...unnamed } = record;
        record = unnamed;
      }
    }
    const building = join(this.sessionsDir, `.${id}.creating.${process.pid}`);
    try {
      makeFolders(join(building, 'blobs'), 0o700);
      writeFileDurable(join(building, 'spec.yaml'), files.specYaml, 0o600, id);
      writeFileDurable(join(building, 'spec.json'), files.specJson, 0o600, id);
      writeFileDurable(join(building, 'events.jsonl'), files.events.map((event) => `${JSON.stringify(event)}\n`).join(''), 0o600, id);
      for (const [hash, bytes] of files.blobs) writeFileDurable(join(building, 'blobs', hash), bytes, 0o600, id);
      if (files.epoch > 0) writeFileDurable(join(building, 'epoch'), String(files.epoch), 0o600, id);
      for (const [name, text] of Object.entries(files.extra ?? {})) writeFileDurable(join(building, name), text, 0o600, id);
      sessionFileIn(building, id).write(record);
      if (replace && existsSync(dir)) {
        const doomed = join(this.sessionsDir, `.${id}.deleting.${process.pid}.${randomBytes(3).toString('hex')}`);
        renameSync(dir, doomed);
        renameSync(building, dir);
        rmSync(doomed, { recursive: true, force: true });
      } else {
        renameSync(building, dir);
      }
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (record.name !== undefined && !replace) this.names.release(record.name, id);
      throw error;
    }
    fsyncDirectory(this.sessionsDir);
    this.index.upsert(summarize(record), previous);
    return droppedName === undefined ? {} : { droppedName };
  }

  /**
   * Hidden folders of creators (see createIn) or deleters (see delete) that died: a listing removes
   * creators' (a new session's few files); a delete removes deleters' — a session killed while being
   * deleted may hold many files, and removing them froze a listing, and the browser, for seconds.
   */
  private removeAbandoned(kind: 'creating' | 'deleting'): void {
    if (!existsSync(this.sessionsDir)) return;
    for (const name of readdirSync(this.sessionsDir)) {
      const leftover = /^\.[0-9a-f]{16}\.(creating|deleting)\.(\d+)(?:\.[0-9a-f]+)?$/.exec(name);
      if (!leftover || leftover[1] !== kind || processAlive(Number(leftover[2]))) continue;
      try {
        rmSync(join(this.sessionsDir, name), { recursive: true, force: true });
      } catch {
        // Not removable by this user (a `sudo acode` left it): hidden, it harms no listing.
      }
    }
  }

  /** Finds a session by id, unique prefix (≥ 4 characters) or name. */
  resolveId(idOrPrefix: string): string {
    if (idPattern.test(idOrPrefix) && existsSync(join(this.sessionsDir, idOrPrefix))) return idOrPrefix;
    // Names are never made of hex digits alone, so a name and an id prefix cannot be confused.
    if (isSessionName(idOrPrefix)) {
      const named = this.names.lookup(idOrPrefix);
      if (named !== undefined) return named;
      throw new AcodeError(`no session matches '${idOrPrefix}': no session has that name${didYouMean(idOrPrefix, this.names.all())}; run 'acode sessions list' to see the sessions in ${this.home}`, ExitCode.failure, 'ACODE-RESUME-005');
    }
    if (idOrPrefix.length < 4) throw new AcodeError(`session id prefix '${idOrPrefix}' is too short: give at least 4 characters (see 'acode sessions list')`, ExitCode.usage);
    // Only ids are sessions: `.<id>.creating.<pid>` is one being made (or abandoned), `.<id>.deleting…` one going.
    if (idOrPrefix.startsWith('.')) throw new AcodeError(`'${idOrPrefix}' is not a session: names starting with a dot are folders acode is creating or deleting; run 'acode sessions list' to see the sessions in ${this.home}`, ExitCode.failure, 'ACODE-RESUME-005');
    const ids = existsSync(this.sessionsDir) ? readdirSync(this.sessionsDir).filter((id) => idPattern.test(id) && id.startsWith(idOrPrefix)) : [];
    if (ids.length === 1) return ids[0]!;
    if (ids.length === 0) throw new AcodeError(`no session matches '${idOrPrefix}'; run 'acode sessions list' to see the sessions in ${this.home}`, ExitCode.failure, 'ACODE-RESUME-005');
    throw new AcodeError(`'${idOrPrefix}' matches ${ids.length} sessions (${ids.slice(0, 5).join(', ')}…); give more characters`, ExitCode.usage);
  }

  open(idOrPrefix: string): SessionHandle {
    const id = this.resolveId(idOrPrefix);
    let record: SessionRecord | null;
    try {
      record = this.adapterFor(id).read();
    } catch (error) {
      // A file this user may not read is no damage: deleting the session would be the wrong advice.
      if ((error as { code?: string }).code === 'EACCES' || (error as { code?: string }).code === 'EPERM') throw namingFile(error, join(this.sessionsDir, id, 'session.json'));
      throw new AcodeError(`session ${id} is damaged: ${join(this.sessionsDir, id, 'session.json')} does not parse (${(error as Error).message.split('\n')[0]}); inspect it, or delete the session with 'acode sessions delete ${id} --force'`, ExitCode.failure, 'ACODE-RESUME-005');
    }
    if (!record) throw new AcodeError(`session ${id} has no checkpoint (session.json is missing); delete it with 'acode sessions delete ${id} --force'`, ExitCode.failure, 'ACODE-RESUME-005');
    return new SessionHandle(join(this.sessionsDir, id), new LowSync(this.adapterFor(id), record), this.index);
  }

  /** Every session, newest first, from the index (reconciled with the sessions folder). */
  list(options: { write?: boolean } = {}): SessionSummary[] {
    const write = options.write ?? true;
    if (write) this.removeAbandoned('creating');
    return this.index.list(write);
  }

  /**
   * Refuses (naming the folder) when sessions cannot be written here: a read-only or unwritable
   * ACODE_HOME. Called by every command that changes sessions, before it writes anything.
   */
  requireWritable(action: string): void {
    requireWritable([this.home, this.sessionsDir], action);
  }

  /** Whether this store has removed what deleters that died left (once: removeAbandoned). */
  private sweptDeletions = false;

  /** Who holds a session's lock, if anyone; a dead or silent owner makes it stale. */
  lockState(id: string, timeoutMs: number): LockState {
    return SessionLock.inspect(join(this.sessionsDir, id), timeoutMs);
  }

  /**
   * Deletes a session: first out of sight in one rename (to `.<id>.deleting.<pid>.<n>`, never
   * listed), then removed. Removing a folder of many files takes long — the lock the deleter holds
   * meanwhile beats no heartbeat, and a resume that took it over as stale ran on in a half-deleted
   * folder; after the rename there is no session left to resume. A folder that cannot be removed
   * (another user's files inside, after a `sudo acode`) is put back under its name, holding what
   * could not be removed. What a deleter that died left is removed by this store's first delete.
   */
  delete(id: string): void {
    if (!this.sweptDeletions) {
      this.sweptDeletions = true;
      this.removeAbandoned('deleting');
    }
    const previous = this.summaryOf(id);
    const dir = join(this.sessionsDir, id);
    const doomed = join(this.sessionsDir, `.${id}.deleting.${process.pid}.${randomBytes(3).toString('hex')}`);
    try {
      renameSync(dir, doomed);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    try {
      rmSync(doomed, { recursive: true, force: true });
    } catch (error) {
      renameSync(doomed, dir);
      // A file that may not be unlinked (EPERM) makes Node's rmSync try it as a folder, and it
      // reports that attempt's ENOTDIR: the cause was the EPERM.
      const code = (error as NodeJS.ErrnoException).code;
      throw Object.assign(namingFile(error, dir) as NodeJS.ErrnoException, { syscall: 'rm' }, code === 'ENOTDIR' ? { code: 'EPERM' } : {});
    }
    this.index.remove(id, previous);
    if (previous?.name !== undefined) this.names.release(previous.name, id);
  }
}
