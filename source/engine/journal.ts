import type { EngineEvent } from './events.js';
import type { SessionProgress } from './session-progress.js';

/**
 * Where the engine's events go to be durable. The store's session journal appends them to the
 * event log and writes the checkpoint; `--no-save-session` uses the null journal.
 */
export interface Journal {
  /** Called after `progress` has absorbed `event`; returns once the event is durable. */
  record(event: EngineEvent, progress: SessionProgress): void;
}

export const nullJournal: Journal = { record() {} };

/** Thrown by a sealed journal: the session now belongs to another process; write nothing more. */
export class JournalSealedError extends Error {
  override readonly name = 'JournalSealedError';
}
