import { join } from 'node:path';
import { mtimeOf } from './file-mtime.js';
import { indexSignature } from './index-log.js';

/**
 * What tells a look at the local store that something may have changed since the last one: the
 * index's files (its base and logs), the sessions folder (a session added or removed), and the
 * files of the sessions a process may be driving — their log grows with every event, while their
 * snapshot is written lazily and the index only hears of status changes. A few stats, whatever the
 * number of sessions stored.
 */
export function changeStamp(home: string, sessions: readonly string[]): string {
  return `${storeStamp(home)}:${liveStamp(home, sessions)}`;
}

/** The stamp's part for the store as a whole: the index's files and the sessions folder. */
export function storeStamp(home: string): string {
  return `${indexSignature(home)}:${mtimeOf(join(home, 'sessions'))}`;
}

/** The stamp's part for the sessions a process may be driving: their snapshot and their log. */
export function liveStamp(home: string, sessions: readonly string[]): string {
  const sessionsDir = join(home, 'sessions');
  return sessions.map((id) => `${mtimeOf(join(sessionsDir, id, 'session.json'))}/${mtimeOf(join(sessionsDir, id, 'events.jsonl'))}`).join(',');
}
