import type { EngineEvent, StopReason } from './events.js';
import type { SessionProgress } from './session-progress.js';

/**
 * Where the engine's events go to be durable. The store's session journal appends them to the
 * event log and writes the checkpoint; `--no-save-session` uses the null journal.
 */
export interface Journal {
  /**
   * Called after `progress` has absorbed `event`; returns once the event is written, so that a
   * process killed after it loses nothing. An event that something outside the log follows at once
   * (a file write's intent, an approval, the end of the run) is durable by then against a power cut
   * too; any other becomes so with the next flush().
   */
  record(event: EngineEvent, progress: SessionProgress): void;
  /**
   * Resolves once every event recorded so far is durable (fdatasync'ed), and rejects if this process
   * lost the session meanwhile. Awaited before anything leaves the process on the strength of those
   * events: a step's model is called only after its step_started is durable. Concurrent callers
   * share fdatasyncs (group commit). Absent: record() makes every event durable itself.
   */
  flush?(): Promise<void>;
  /**
   * False once another process has taken the session over: a side effect outside the journal (a
   * file write in the working directory) checks it right before it happens. Absent: always owned.
   */
  stillOwned?(): boolean;
  /**
   * After a write failed (a full disk): records `session_paused` on top of what the log on disk
   * holds — the run's own progress may be one unrecorded event ahead. Best effort: false when even
   * that cannot be written (the session then stays `running` and is listed as interrupted).
   */
  pauseFromLog?(reason: StopReason, message: string): boolean;
  /**
   * The lock epoch this run writes under and the last event its state was built from: an event
   * the journal writes on its own (pauseFromLog) carries them as the executor's events do.
   */
  writesAs?(epoch: number, basedOn: number): void;
}

export const nullJournal: Journal = { record() {} };

/** Thrown by a sealed journal: the session now belongs to another process; write nothing more. */
export class JournalSealedError extends Error {
  override readonly name = 'JournalSealedError';
}

/**
 * Stops a side effect (a file write in the working directory) of a process that has lost the
 * session: called right before the effect, it throws the sealed journal's error.
 */
export function ensureStillOwned(stillOwned: (() => boolean) | undefined): void {
  if (stillOwned && !stillOwned()) throw new JournalSealedError('the session lock was taken by another process');
}
