import { join } from 'node:path';
import type { ArtifactOwners } from '../engine/artifacts.js';
import type { EngineEvent } from '../engine/events.js';
import type { WorkflowSpec } from '../spec/schema.js';
import type { LeaseResult, SessionBlobs, LeasedJournal, SessionRepository, SessionWatch, StoredSession } from '../session/repository.js';
import { ArtifactOwnerFiles } from './artifact-owners.js';
import { changeStamp } from './change-stamp.js';
import { FileBlobStore } from './file-blob-store.js';
import { peekSession, type SessionPeek } from './session-peek.js';
import { SessionLock, type LockOwner, type LockState } from './session-lock.js';
import type { SessionRecord, SessionSummary } from './session-record.js';
import { SessionStore, type AdoptedSession, type NewSession, type SessionHandle } from './session-store.js';
import { namingFile } from './durable-file.js';

class LocalBlobs extends FileBlobStore implements SessionBlobs {
  constructor(readonly location: string, owner: string) {
    super(location, owner);
  }
}

/** One session folder behind the StoredSession port. */
class LocalSession implements StoredSession {
  constructor(private readonly handle: SessionHandle) {}

  get record(): SessionRecord {
    return this.handle.record;
  }

  get location(): string {
    return this.handle.dir;
  }

  async spec(): Promise<WorkflowSpec> {
    return this.handle.spec();
  }

  async specText(): Promise<string> {
    return this.handle.specText();
  }

  async replaceSpec(spec: WorkflowSpec): Promise<void> {
    this.handle.replaceSpec(spec);
  }

  async events(): Promise<EngineEvent[]> {
    return this.handle.events();
  }

  blobs(): SessionBlobs {
    return new LocalBlobs(join(this.handle.dir, 'blobs'), this.record.session_id);
  }

  openJournal(): LeasedJournal {
    return this.handle.openJournal();
  }

  async removeLeftoverTempFiles(workDirs: Iterable<string>): Promise<string[]> {
    return this.handle.removeLeftoverTempFiles(workDirs);
  }

  async requireWritable(action: string): Promise<void> {
    this.handle.requireWritable(action);
  }
}

/**
 * The session repository over today's local files: lowdb session folders, the index, lock files.
 * It wraps SessionStore and SessionLock without changing how they lay sessions out on disk.
 */
export class LocalSessionRepository implements SessionRepository {
  private readonly store: SessionStore;

  /** Refuses (an AcodeError) when the home or its sessions folder is a file; `notify` hears repairs to the index. */
  constructor(
    readonly home: string,
    notify?: (message: string) => void,
  ) {
    this.store = new SessionStore(home, notify);
  }

  private dirOf(id: string): string {
    return join(this.home, 'sessions', id);
  }

  async create(init: NewSession): Promise<StoredSession> {
    return new LocalSession(this.store.create(init));
  }

  async adopt(session: AdoptedSession, replace: boolean): Promise<{ droppedName?: string }> {
    return this.store.adopt(session, replace);
  }

  async open(idOrPrefix: string): Promise<StoredSession> {
    return new LocalSession(this.store.open(idOrPrefix));
  }

  async resolveId(idOrPrefix: string): Promise<string> {
    return this.store.resolveId(idOrPrefix);
  }

  async list(options: { write?: boolean } = {}): Promise<SessionSummary[]> {
    return this.store.list(options);
  }

  async peek(id: string): Promise<SessionPeek> {
    return peekSession(this.dirOf(id));
  }

  /** Polls the change stamp: a few stats per interval, whatever the number of sessions stored. */
  watch(onChange: () => void, options: { intervalMs: number; sessions: () => readonly string[] }): SessionWatch {
    let last = changeStamp(this.home, options.sessions());
    const timer = setInterval(() => {
      const now = changeStamp(this.home, options.sessions());
      if (now === last) return;
      last = now;
      onChange();
    }, options.intervalMs).unref();
    return { stop: () => clearInterval(timer) };
  }

  async delete(id: string): Promise<void> {
    this.store.delete(id);
  }

  async deleteIfIdle(id: string, timeoutMs: number, stillWanted: (record: SessionRecord) => boolean = () => true): Promise<'deleted' | 'running' | 'changed' | 'gone'> {
    // The rule checked again as the session's files say now, then the delete: done with its lock held.
    const deleteIfWanted = (): 'deleted' | 'changed' => {
      if (!stillWanted(this.store.open(id).record)) return 'changed';
      this.store.delete(id);
      return 'deleted';
    };
    let taken: ReturnType<typeof SessionLock.acquire>;
    try {
      taken = SessionLock.acquire(this.dirOf(id), timeoutMs);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOENT') return 'gone';
      // A full disk has no room for a lock file — cleanup is how space is freed, so it must still
      // delete. No other process can take the lock there either (a lock is a file written, then
      // linked), so the check and the removal cannot be raced: a live holder's lock is read instead.
      if (code !== 'ENOSPC' && code !== 'EDQUOT') throw error;
      if ((await this.lockState(id, timeoutMs)).kind === 'held') return 'running';
      return deleteIfWanted();
    }
    if (!taken.acquired) return 'running';
    try {
      return deleteIfWanted();
    } finally {
      // Gone with its folder when deleted: release finds no lock of its own to remove.
      taken.lock.release();
    }
  }

  async lease(id: string, options: { timeoutMs: number; floorEpoch: number }): Promise<LeaseResult> {
    const dir = this.dirOf(id);
    let result: ReturnType<typeof SessionLock.acquire>;
    try {
      result = SessionLock.acquire(dir, options.timeoutMs, options.floorEpoch);
    } catch (error) {
      // A failed write names its temp file or none; the lock is what was being written.
      const { path } = error as { path?: unknown };
      throw typeof path === 'string' ? error : namingFile(error, join(dir, 'lock'));
    }
    if (!result.acquired) return { acquired: false, holder: result.state.owner };
    return result.tookOverFrom ? { acquired: true, lease: result.lock, tookOverFrom: result.tookOverFrom } : { acquired: true, lease: result.lock };
  }

  async lockState(id: string, timeoutMs: number): Promise<LockState> {
    return this.store.lockState(id, timeoutMs);
  }

  async unlock(id: string): Promise<LockOwner | undefined> {
    return SessionLock.forceRemove(this.dirOf(id));
  }

  async requireWritable(action: string): Promise<void> {
    this.store.requireWritable(action);
  }

  artifactOwners(): ArtifactOwners {
    return new ArtifactOwnerFiles(this.home);
  }
}
