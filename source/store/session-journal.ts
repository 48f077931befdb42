import { join } from 'node:path';
import type { LowSync } from 'lowdb';
import type { EngineEvent, EngineEventType, SessionStatus, StopReason } from '../engine/events.js';
import { JournalSealedError, type Journal } from '../engine/journal.js';
import { applyEvent, replayEvents, toCheckpoint, type Checkpoint, type SessionProgress } from '../engine/session-progress.js';
import { EventLogWriter, readEventLog, type FileSync } from './event-log.js';
import { firstInputGist, type SessionRecord } from './session-record.js';

/**
 * Events that are durable (fdatasync'ed) when record() returns, because something outside the log
 * happens right after them, synchronously, on their strength:
 * - file_write_intended: the working-directory file is replaced next. After a power cut, the intent
 *   (before/after hashes, the prior content's blob) is what lets a resume tell an applied write from
 *   a torn one and roll it back; a write the log does not announce could not be undone.
 * - tool_effect_intended: python_exec runs, or a request that changes a server is sent, next. A
 *   resume after a power cut must know it may have happened, and not run it again blindly.
 * - approval_requested, approval_answered: a person is asked, or has answered. Nothing but the log
 *   can replay a person's answer, and asking twice is the failure to avoid.
 * - session_paused, session_failed, session_cancelled, session_completed: the run ends and tells
 *   the person so (the checkpoint and the index row say it too); the log must say it as well, even
 *   if the machine loses power the next instant.
 * A change of status also writes the checkpoint at once, which needs the log durable first (below).
 * Every other event (step_started, step_completed, tool calls …) is written at once — a kill -9
 * loses nothing — and becomes durable with the next flush(): the executor awaits one before each
 * model call, so one step's step_completed and the next step's step_started share one fdatasync,
 * and concurrent steps share theirs (group commit, EventLogWriter.flush).
 */
const durableAtOnce = new Set<EngineEventType>(['file_write_intended', 'tool_effect_intended', 'approval_requested', 'approval_answered', 'session_paused', 'session_failed', 'session_cancelled', 'session_completed']);

/**
 * session.json holds a snapshot of the replayed log, so it may lag the log: a resume replays the
 * whole log and checks it against the snapshot at the snapshot's own last event (replay-check.ts),
 * rolling forward past it, so how far the snapshot lags never changes what a resume does or costs.
 * It is written at once on a change of status (listings show the status from it); otherwise lazily,
 * after 256 events or 1 s since the last one, whichever comes first, once the fdatasync that covers
 * its last event is done — never ahead of what the log holds durably. A snapshot costs a temp file,
 * an fdatasync, a rename and a directory fsync: about three fdatasyncs of the log, and on a busy disk
 * far more (25 ms measured while other test suites ran). At 256 events (128 chain steps) that is
 * some 2% of a step's one fdatasync; at 64 it measured up to 0.8 ms a step on that busy disk. A slow
 * run (steps of seconds) is still snapshotted after every step, at no cost anyone could see; and
 * listings roll a running session's snapshot forward over the end of its log (log-tail.ts), so a
 * run killed mid-way is listed with the steps its log holds.
 */
const checkpointEveryEvents = 256;
const checkpointEveryMs = 1000;

const lostLock = 'the session lock was taken by another process';

/** Rows listings re-read from the session files; any other row shows what the index says. */
const selfRefreshing = (status: SessionStatus) => status === 'created' || status === 'running';

/**
 * The store side of the engine's Journal: the write-ahead event log first, then the constant-size
 * checkpoint (atomic rename), written lazily. A crash between the two leaves the log ahead of the
 * checkpoint, which replay rolls forward.
 */
export class SessionJournal implements Journal {
  private readonly log: EventLogWriter;
  private sealedBecause?: string;
  /** The status the index row shows: it is rewritten only when a listing would otherwise be wrong. */
  private indexedStatus: SessionStatus;
  /** The checkpoint on disk: its status, the log position (this writer's appends) it covers, and when it was written. */
  private checkpointStatus: SessionStatus;
  private checkpointPosition = 0;
  private checkpointMs = performance.now();
  /** A snapshot that is due, waiting for the fdatasync that covers its last event (see flush). */
  private pending?: { checkpoint: Checkpoint; ts: string; position: number };
  /** The progress of the last event appended, with that event's id: it is a snapshot of the log only while no later event was applied to it. */
  private latest?: { progress: SessionProgress; eventId: number; ts: string };
  /** Snapshots written: the benchmark and the tests count them. */
  checkpointsWritten = 0;

  constructor(
    private readonly dir: string,
    private readonly db: LowSync<SessionRecord>,
    private readonly onStatusChange: (record: SessionRecord) => void,
    options: { fileSync?: FileSync } = {},
  ) {
    this.log = new EventLogWriter(join(dir, 'events.jsonl'), options.fileSync);
    this.indexedStatus = db.data.checkpoint.status;
    this.checkpointStatus = db.data.checkpoint.status;
  }

  /**
   * Listing re-reads rows marked created or running from their session files, so those need no
   * index write; any other change of status does (a per-step index write would grow with the store).
   */
  private indexIsStale(status: SessionStatus): boolean {
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
   * The lock is checked right before every append, before each flush resolves (the model is
   * called), before each checkpoint and, through stillOwned(), right before a working-directory
   * file is replaced. An event appended by a process that lost the lock is fenced out at replay by
   * its superseded epoch (epoch-fence.ts), but it still lands in the log, reusing the new holder's
   * event ids: a holder frozen past the lock timeout and woken after a takeover appended 2–5 such
   * events before its next outside effect noticed. Checked at every append, at most the one event
   * in flight when it froze can land. The check is a stat and a small read of the lock file this
   * process holds open (SessionLock.stillOwned), a few microseconds an event.
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
      this.seal(lostLock);
      return false;
    }
    return true;
  }

  private requireOwned(): void {
    if (!this.stillOwned()) throw new JournalSealedError(this.sealedBecause ?? lostLock);
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
      throw new JournalSealedError(this.sealedBecause ?? lostLock);
    }
  }

  record(event: EngineEvent, progress: SessionProgress): void {
    if (this.sealedBecause) throw new JournalSealedError(this.sealedBecause);
    const statusChange = event.type === 'session_started' || progress.status !== this.checkpointStatus;
    const atOnce = statusChange || durableAtOnce.has(event.type);
    this.requireOwned();
    this.lostOrThrow(() => this.log.append(event, atOnce));
    this.latest = { progress, eventId: event.event_id, ts: event.ts };
    // The session's first step to start (none completed yet): the start of its input, as the event has it
    // (redacted), goes into session.json with a snapshot written once the step is durable — before its
    // model is called, so a session killed in its first step keeps it. Once a session.
    const firstInput = event.type === 'step_started' && event.prompt && this.db.data.first_input === undefined && Object.keys(progress.completed).length === 0 ? firstInputGist(event.prompt.input) : undefined;
    if (firstInput !== undefined) this.db.data.first_input = firstInput;
    if (!statusChange && firstInput === undefined && !this.checkpointDue()) return;
    // Durable already (atOnce): the snapshot can follow at once. Otherwise it waits for the next flush's fdatasync.
    if (atOnce) this.writeCheckpoint(toCheckpoint(progress), event.ts, this.log.position);
    else this.pending = { checkpoint: structuredClone(toCheckpoint(progress)), ts: event.ts, position: this.log.position };
  }

  private checkpointDue(): boolean {
    const behind = this.log.position - this.checkpointPosition;
    return behind >= checkpointEveryEvents || (behind > 0 && performance.now() - this.checkpointMs >= checkpointEveryMs);
  }

  /**
   * Resolves once every event recorded so far is durable; concurrent callers share fdatasyncs. A
   * snapshot that became due meanwhile is written right after, the sync having covered it.
   */
  async flush(): Promise<void> {
    if (this.sealedBecause) throw new JournalSealedError(this.sealedBecause);
    try {
      await this.log.flush();
    } catch (error) {
      if (this.stillOwned()) throw error;
      throw new JournalSealedError(this.sealedBecause ?? lostLock);
    }
    // What follows is outside the log (the model is called): a process that lost the lock stops here.
    this.requireOwned();
    const pending = this.pending;
    if (pending && this.log.isDurable(pending.position) && pending.position > this.checkpointPosition) this.writeCheckpoint(pending.checkpoint, pending.ts, pending.position);
  }

  /**
   * Replaces session.json with a snapshot whose last event is at `position`, which the log holds
   * durably. True when it also rewrote the session's index row.
   */
  private writeCheckpoint(checkpoint: Checkpoint, ts: string, position: number): boolean {
    // A holder frozen between its append and here must not overwrite the new holder's checkpoint.
    this.requireOwned();
    this.db.data.checkpoint = checkpoint;
    this.db.data.updated_at = ts;
    this.lostOrThrow(() => this.db.write());
    this.checkpointsWritten++;
    this.checkpointPosition = position;
    this.checkpointStatus = checkpoint.status;
    this.checkpointMs = performance.now();
    if (this.pending && this.pending.position <= position) this.pending = undefined;
    if (!this.indexIsStale(checkpoint.status)) return false;
    this.onStatusChange(this.db.data);
    this.indexedStatus = checkpoint.status;
    return true;
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

  /**
   * Makes the log durable and the snapshot catch up with it — while this process still holds the
   * session, and only if the run's progress is still that of the last event appended (an event
   * whose append failed was applied but never logged: a snapshot of it would be ahead of the log).
   * Best effort on a full disk or a lost lock: the log holds every event appended, and the next
   * resume rolls the snapshot forward.
   */
  close(): void {
    try {
      const latest = this.latest;
      if (this.log.position > this.checkpointPosition && this.stillOwned()) {
        this.log.sync();
        if (latest && latest.progress.last_event_id === latest.eventId) {
          const indexed = this.writeCheckpoint(toCheckpoint(latest.progress), latest.ts, this.log.position);
          // A run that ends without a change of status (awaiting approval in one branch while the
          // others went on): its row, which listings do not re-read, takes the steps done since.
          if (!indexed && !selfRefreshing(this.indexedStatus)) this.onStatusChange(this.db.data);
        }
      }
    } catch (error) {
      if (!(error instanceof JournalSealedError) && !(error instanceof Error && 'code' in error)) throw error;
    } finally {
      this.log.close();
    }
  }
}
