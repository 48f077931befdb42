import type { ArtifactOwners } from '../engine/artifacts.js';
import type { BlobStore } from '../engine/blob-store.js';
import type { EngineEvent } from '../engine/events.js';
import type { Journal } from '../engine/journal.js';
import type { WorkflowSpec } from '../spec/schema.js';
import type { SessionRecord, SessionSummary } from '../store/session-record.js';
import type { SessionPeek } from '../store/session-peek.js';
import type { LockOwner, LockState } from '../store/session-lock.js';
import type { AdoptedSession, NewSession } from '../store/session-store.js';

// The shapes of what is stored (validated by the store's zod schemas) travel with the ports.
export type { AdoptedSession, LockOwner, LockState, NewSession, SessionPeek, SessionRecord, SessionSummary };

/**
 * The ports the session lifecycle drives sessions through. Every method that may reach storage is
 * asynchronous, so that a remote store can sit behind the same interface as today's local files
 * (store/local-repository.ts); the engine's own ports (Journal, BlobStore) stay synchronous.
 */
export interface SessionRepository {
  /** The local acode home: config files live there, and messages name it. */
  readonly home: string;
  /** A new session, whole or not at all. */
  create(init: NewSession): Promise<StoredSession>;
  /**
   * A session brought from elsewhere (pulled from the team store), written whole or not at all;
   * `replace`: in place of the copy this home has. Its name goes with it unless taken here.
   */
  adopt(session: AdoptedSession, replace: boolean): Promise<{ droppedName?: string }>;
  /** One session by id or unique prefix (≥ 4 characters); validated as it is read. */
  open(idOrPrefix: string): Promise<StoredSession>;
  /** The full id of a session given by id or unique prefix. */
  resolveId(idOrPrefix: string): Promise<string>;
  /** Every session, newest first. `write: false` leaves the store exactly as it was (no index repair). */
  list(options?: { write?: boolean }): Promise<SessionSummary[]>;
  /** What a listing shows of one session beyond its row, read without the full validation. */
  peek(id: string): Promise<SessionPeek>;
  /**
   * Calls `onChange` (at most once per interval) when the sessions may have changed in another
   * process; `sessions()` names the sessions to watch closely (those a process may be driving).
   */
  watch(onChange: () => void, options: { intervalMs: number; sessions: () => readonly string[] }): SessionWatch;
  delete(id: string): Promise<void>;
  /**
   * Deletes a session only while holding its lock, and only if `stillWanted` says yes of its record
   * read under it: a session a live process runs is `running`; one that changed since it was
   * chosen (resumed to another status meanwhile) is `changed`; one already gone is `gone`. Between
   * the check and the removal no resume can take it up.
   */
  deleteIfIdle(id: string, timeoutMs: number, stillWanted?: (record: SessionRecord) => boolean): Promise<'deleted' | 'running' | 'changed' | 'gone'>;
  /** Takes a session's lock with an epoch above `floorEpoch`, unless a live process holds it. */
  lease(id: string, options: { timeoutMs: number; floorEpoch: number }): Promise<LeaseResult>;
  /** Who holds a session's lock, if anyone; a dead or silent owner makes it stale. */
  lockState(id: string, timeoutMs: number): Promise<LockState>;
  /** Removes whatever lock a session has; the owner it had, if any. */
  unlock(id: string): Promise<LockOwner | undefined>;
  /** Refuses (an AcodeError naming the place) when sessions cannot be written here. */
  requireWritable(action: string): Promise<void>;
  /** Which session last wrote each artifact, and what it wrote: a later run replaces those files while unchanged. */
  artifactOwners(): ArtifactOwners;
}

export interface SessionWatch {
  stop(): void;
}

/** A session as the repository hands it out: its record as read, and access to the rest of it. */
export interface StoredSession {
  readonly record: SessionRecord;
  /** Where the session lives, for messages (a folder, for local files). */
  readonly location: string;
  spec(): Promise<WorkflowSpec>;
  specText(): Promise<string>;
  /** Replaces the spec the session runs (a limit raised on resume); only under the session's lease. */
  replaceSpec(spec: WorkflowSpec): Promise<void>;
  events(): Promise<EngineEvent[]>;
  blobs(): SessionBlobs;
  /** Opens the session for appending events and writing checkpoints: only with its lease held. */
  openJournal(): LeasedJournal;
  /** Temp files killed runs of the session left, in its storage and in `workDirs`: only with its lease held. */
  removeLeftoverTempFiles(workDirs: Iterable<string>): Promise<string[]>;
  requireWritable(action: string): Promise<void>;
}

/** The engine's blob port, plus what a resume checks before it starts. */
export interface SessionBlobs extends BlobStore {
  /** Whether the snapshot is there as written (its bytes hash to its name), missing, or damaged. */
  state(hash: string): 'intact' | 'missing' | 'damaged';
  /** Where the snapshot `hash` is kept, for messages. */
  pathOf(hash: string): string;
  /** Where all of them are kept, for messages. */
  readonly location: string;
}

/** The engine's journal port, plus what ties it to a lease. */
export interface LeasedJournal extends Journal {
  /** Checked before writes: once false, the journal refuses to write (another process holds the session). */
  guardWith(stillOwned: () => boolean): void;
  /** From now on every write throws JournalSealedError. */
  seal(reason: string): void;
  close(): void;
}

export type LeaseResult = { acquired: true; lease: Lease; tookOverFrom?: { owner: LockOwner; why: string } } | { acquired: false; holder: LockOwner };

/** A held session lock. */
export interface Lease {
  /** The fencing epoch stamped on every event this holder writes. */
  readonly epoch: number;
  /** Keeps the lease fresh; `onLost` when another process took it (one frozen past the timeout goes on if none did). */
  startHeartbeat(intervalMs: number, onLost: () => void): void;
  /** True while the lease is still this process's (a takeover ends it). */
  stillOwned(): boolean;
  /** Whether the session itself is gone (deleted under a live run). */
  sessionDeleted(): boolean;
  /** The session's lock as it stands now (another holder, a stale one, or none), judged with `timeoutMs`. */
  lockNow(timeoutMs: number): LockState;
  /** Lets the lease go, if still ours; safe to call more than once. */
  release(): void;
}
