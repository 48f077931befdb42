import type { EngineEvent, StopReason } from './events.js';
import type { SessionProgress } from './session-progress.js';

/**
 * Where the engine's events go to be durable. The store's session journal appends them to the
 * event log and writes the checkpoint; `--no-save-session` uses the null journal.
 */
export interface Journal {
  /** Called after `progress` has absorbed `event`; returns once the event is durable. */
  record(event: EngineEvent, progress: SessionProgress): void;
  /**
   * After a write failed (a full disk): records `session_paused` on top of what the log on disk
   * holds — the run's own progress may be one unrecorded event ahead. Best effort: false when even
   * that cannot be written (the session then stays `running` and is listed as interrupted).
   */
  pauseFromLog?(reason: StopReason, message: string): boolean;
}

export const nullJournal: Journal = { record() {} };

/** Thrown by a sealed journal: the session now belongs to another process; write nothing more. */
export class JournalSealedError extends Error {
  override readonly name = 'JournalSealedError';
}
