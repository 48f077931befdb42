import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexFileNames } from './index-files.js';
import { sessionRecordSchema, type SessionRecord } from '../../source/store/session-record.js';

/** Parses every file of every session under `home`; throws on the first that does not parse. */
export function parseAllSessionFiles(home: string): SessionRecord[] {
  const dir = join(home, 'sessions');
  return readdirSync(dir).map((id) => {
    const record = sessionRecordSchema.parse(JSON.parse(readFileSync(join(dir, id, 'session.json'), 'utf8')));
    const log = readFileSync(join(dir, id, 'events.jsonl'), 'utf8');
    for (const line of log.split('\n').filter(Boolean)) JSON.parse(line);
    // Bases are replaced whole; a log's torn last line (its writer killed) is skipped by design.
    for (const name of indexFileNames(home).filter((n) => n.endsWith('.json'))) JSON.parse(readFileSync(join(home, name), 'utf8'));
    return record;
  });
}
