import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionRecordSchema, type SessionRecord } from '../../source/store/session-record.js';

/** Parses every file of every session under `home`; throws on the first that does not parse. */
export function parseAllSessionFiles(home: string): SessionRecord[] {
  const dir = join(home, 'sessions');
  return readdirSync(dir).map((id) => {
    const record = sessionRecordSchema.parse(JSON.parse(readFileSync(join(dir, id, 'session.json'), 'utf8')));
    const log = readFileSync(join(dir, id, 'events.jsonl'), 'utf8');
    for (const line of log.split('\n').filter(Boolean)) JSON.parse(line);
    JSON.parse(readFileSync(join(home, 'index.json'), 'utf8'));
    return record;
  });
}
