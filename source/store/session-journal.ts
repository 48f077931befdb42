import { join } from 'node:path';
import type { LowSync } from 'lowdb';
import type { EngineEvent, EngineEventType } from '../engine/events.js';
import { JournalSealedError, type Journal } from '../engine/journal.js';
import { toCheckpoint, type SessionProgress } from '../engine/session-progress.js';
import { EventLogWriter } from './event-log.js';
import type { SessionRecord } from './session-record.js';

/** Events after which session.json is rewritten: step boundaries and status changes. */
const checkpointAfter = new Set<EngineEventType>(['session_started', 'step_completed', 'artifact_written', 'session_paused', 'session_completed', 'session_failed']);
/** Status changes also refresh the index row (a per-step index write would grow with the store). */
const indexAfter = new Set<EngineEventType>(['session_started', 'session_paused', 'session_completed', 'session_failed']);

/**
 * The store side of the engine's Journal: write-ahead event log first (fdatasync), then the
 * constant-size checkpoint (atomic rename). A crash between the two leaves the log one step ahead
 * of the checkpoint, which replay rolls forward.
 */
export class SessionJournal implements Journal {
  private readonly log: EventLogWriter;
  private sealedBecause?: string;

  constructor(
    dir: string,
    private readonly db: LowSync<SessionRecord>,
    private readonly onStatusChange: (record: SessionRecord) => void,
  ) {
    this.log = new EventLogWriter(join(dir, 'events.jsonl'));
  }

  /** After this, every record() throws: used when the session lock was lost to another process. */
  seal(reason: string): void {
    this.sealedBecause = reason;
  }

  record(event: EngineEvent, progress: SessionProgress): void {
    if (this.sealedBecause) throw new JournalSealedError(this.sealedBecause);
    // Skips carry no new state; they become durable with the next synced event.
    this.log.append(event, event.type !== 'step_skipped');
    if (!checkpointAfter.has(event.type)) return;
    this.db.data.checkpoint = toCheckpoint(progress);
    this.db.data.updated_at = event.ts;
    this.db.write();
    if (indexAfter.has(event.type)) this.onStatusChange(this.db.data);
  }

  close(): void {
    this.log.close();
  }
}
