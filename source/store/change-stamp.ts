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
  const sessionsDir = join(home, 'sessions');
  const live = sessions.map((id) => `${mtimeOf(join(sessionsDir, id, 'session.json'))}/${mtimeOf(join(sessionsDir, id, 'events.jsonl'))}`);
  return `${indexSignature(home)}:${mtimeOf(sessionsDir)}:${live.join(',')}`;
}
