import { join } from 'node:path';
import type { LowSync } from 'lowdb';
import type { EngineEvent, EngineEventType, SessionStatus, StopReason } from '../engine/events.js';
import { JournalSealedError, type Journal } from '../engine/journal.js';
import { applyEvent, replayEvents, toCheckpoint, type SessionProgress } from '../engine/session-progress.js';
import { EventLogWriter, readEventLog, type FileSync } from './event-log.js';
import type { SessionRecord } from './session-record.js';

/** Skips carry no state and come in bulk (one per finished step) right after a checked event: not checked. */
const unguarded = new Set<EngineEventType>(['step_skipped']);

/** Events after which session.json is rewritten: step boundaries and status changes. */
const checkpointAfter = new Set<EngineEventType>(['session_started', 'step_completed', 'artifact_written', 'session_paused', 'session_completed', 'session_failed', 'session_cancelled', 'approval_requested', 'approval_answered']);

/**
 * The store side of the engine's Journal: write-ahead event log first (fdatasync), then the
 * constant-size checkpoint (atomic rename). A crash between the two leaves the log one step ahead
 * of the checkpoint, which replay rolls forward.
 */
export class SessionJournal implements Journal {
  private readonly log: EventLogWriter;
  private sealedBecause?: string;
  /** The status the index row shows: it is rewritten only when a listing would otherwise be wrong. */
  private indexedStatus: SessionStatus;

  constructor(
    private readonly dir: string,
    private readonly db: LowSync<SessionRecord>,
    private readonly onStatusChange: (record: SessionRecord) => void,
    options: { fileSync?: FileSync } = {},
  ) {
    this.log = new EventLogWriter(join(dir, 'events.jsonl'), options.fileSync);
    this.indexedStatus = db.data.checkpoint.status;
  }

  /**
   * Listing re-reads rows marked created or running from their session files, so those need no
   * index write; any other change of status does (a per-step index write would grow with the store).
   */
  private indexIsStale(status: SessionStatus): boolean {
    const selfRefreshing = (s: SessionStatus) => s === 'created' || s === 'running';
    return status !== this.indexedStatus && !(selfRefreshing(this.indexedStatus) && status === 'running');
  }

  private guard?: () => boolean;
  /** The holder's epoch and what its state was built from (see Journal.writesAs). */
  private writer?: { epoch: number; basedOn: number };

  writesAs(epoch: number, basedOn: number): void {
    this.writer = { epoch, basedOn };
  }

  /** After this, every record() throws: used when the session lock was lost to another process. */
  seal(reason: string): void {
    this.sealedBecause = reason;
  }

  /**
   * Checks `stillOwned` before every event that can change the session (one small read of the lock
   * file) and before every checkpoint, so a process that lost its lock stops at once instead of at
   * its next heartbeat. Whatever still slips through (a freeze between the check and the write) is
   * fenced out by its epoch when the log is replayed.
   */
  guardWith(stillOwned: () => boolean): void {
    this.guard = stillOwned;
  }

  /**
   * True while this process may still change the session; false (and sealed) once the lock is lost.
   * The working-directory write path calls it right before touching a file.
   */
  stillOwned(): boolean {
    if (this.sealedBecause) return false;
    if (this.guard && !this.guard()) {
      this.seal('the session lock was taken by another process');
      return false;
    }
    return true;
  }

  /**
   * Runs a write; if it fails after the lock was lost (the new holder's resume removed this
   * process's temp file while it was frozen), that is the answer: the session is another's now.
   */
  private lostOrThrow(write: () => void): void {
    try {
      write();
    } catch (error) {
      if (this.stillOwned()) throw error;
      throw new JournalSealedError(this.sealedBecause ?? 'the session lock was taken by another process');
    }
  }

  record(event: EngineEvent, progress: SessionProgress): void {
    if (!unguarded.has(event.type)) this.stillOwned();
    if (this.sealedBecause) throw new JournalSealedError(this.sealedBecause);
    // Skips carry no new state; they become durable with the next synced event.
    this.lostOrThrow(() => this.log.append(event, event.type !== 'step_skipped'));
    if (!checkpointAfter.has(event.type)) return;
    // A holder frozen between its append and here must not overwrite the new holder's checkpoint.
    if (!this.stillOwned()) throw new JournalSealedError(this.sealedBecause ?? 'the session lock was taken by another process');
    this.db.data.checkpoint = toCheckpoint(progress);
    this.db.data.updated_at = event.ts;
    this.lostOrThrow(() => this.db.write());
    const status = this.db.data.checkpoint.status;
    if (this.indexIsStale(status)) {
      this.onStatusChange(this.db.data);
      this.indexedStatus = status;
    }
  }

  pauseFromLog(reason: StopReason, message: string): boolean {
    try {
      const progress = replayEvents(readEventLog(join(this.dir, 'events.jsonl')), this.db.data.checkpoint.steps_total);
      const now = new Date().toISOString();
      const last = progress.last_event_at;
      const epoch = this.writer?.epoch ?? progress.epoch;
      // The holder's first event in the log says what it built on, so strays of older holders stay fenced.
      const first = this.writer !== undefined && progress.epoch !== epoch;
      const event: EngineEvent = {
        type: 'session_paused', reason, message, step: Object.keys(progress.in_progress)[0] ?? null, event_id: progress.last_event_id + 1, ts: last && last > now ? last : now, epoch,
        ...(first ? { based_on: this.writer!.basedOn } : {}),
      };
      this.record(event, applyEvent(progress, event));
      return true;
    } catch {
      // The disk is still full (or the lock is gone): the session stays as the log left it.
      return false;
    }
  }

  close(): void {
    this.log.close();
  }
}
