import { join } from 'node:path';
import { mtimeOf } from './file-mtime.js';

/**
 * What tells a look at the local store that something may have changed since the last one: the
 * index, the sessions folder (a session added or removed), and the files of the sessions a process
 * may be driving (their progress is not written to the index on every step). A few stats, whatever
 * the number of sessions stored.
 */
export function changeStamp(home: string, sessions: readonly string[]): string {
  const sessionsDir = join(home, 'sessions');
  return `${mtimeOf(join(home, 'index.json'))}:${mtimeOf(sessionsDir)}:${sessions.map((id) => mtimeOf(join(sessionsDir, id, 'session.json'))).join(',')}`;
}
