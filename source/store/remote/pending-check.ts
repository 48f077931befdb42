import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readCursor } from './sync-cursor.js';

/**
 * Whether any session of this home may have events not yet in `remote`: a log whose size is not
 * the one its cursor saw whole (one stat and one small read a session, nothing of the event log's
 * code loaded). False means nothing is pending for sure; true, that the outbox must be read.
 */
export function mayHavePending(home: string, remote: string): boolean {
  let names: string[];
  try {
    names = readdirSync(join(home, 'sessions'));
  } catch {
    return false;
  }
  return names.some((name) => {
    if (!/^[0-9a-f]{16}$/.test(name)) return false;
    const dir = join(home, 'sessions', name);
    try {
      return statSync(join(dir, 'events.jsonl')).size !== readCursor(dir, remote).log_bytes;
    } catch {
      return false;
    }
  });
}
