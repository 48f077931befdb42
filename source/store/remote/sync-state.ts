import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../durable-file.js';

/** The last attempt to reach the team store, kept in $ACODE_HOME for `acode status`. */
export interface SyncAttempt {
  /** The store it was made to (URL without credentials). */
  remote: string;
  at: string;
  ok: boolean;
  /** Why it failed, with the password taken out; null when it succeeded. */
  reason: string | null;
  /** When a run's background push tries again (absent for \`acode sync\`, which tries once). */
  next_retry_at?: string;
}

const fileName = 'sync-state.json';

/** The last attempt at `remote`; undefined if none was made (or it was made to another store). */
export function readLastAttempt(home: string, remote: string): SyncAttempt | undefined {
  try {
    const attempt = JSON.parse(readFileSync(join(home, fileName), 'utf8')) as SyncAttempt;
    return attempt.remote === remote && typeof attempt.at === 'string' ? attempt : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records an attempt: atomic, not fsync'd (a status line, rebuilt by the next attempt). Best
 * effort: a home that does not exist yet (nothing to sync) or cannot be written changes nothing
 * about the attempt itself, whose outcome the command reports anyway.
 */
export function recordAttempt(home: string, attempt: SyncAttempt): void {
  try {
    writeFileAtomic(join(home, fileName), `${JSON.stringify(attempt)}\n`);
  } catch {
    // See above.
  }
}
