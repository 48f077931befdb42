import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mayHavePending } from '../../source/store/remote/pending-check.js';
import { tempDir } from '../helpers/temp-dir.js';

const remote = 'postgres://db.example:5432/acode';

function homeWithLog(bytes: string): { home: string; dir: string } {
  const home = tempDir('acode-pending-');
  const dir = join(home, 'sessions', '0123456789abcdef');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'events.jsonl'), bytes);
  return { home, dir };
}

describe('the check a listing makes before it reads the home', () => {
  it('finds nothing to push in a home without sessions', () => {
    expect(mayHavePending(tempDir('acode-pending-'), remote)).toBe(false);
  });

  it('finds a log no cursor covers, and one that grew past its cursor', () => {
    const line = '{"type":"session_started","event_id":1}\n';
    const { home, dir } = homeWithLog(line + line);
    expect(mayHavePending(home, remote)).toBe(true);
    writeFileSync(join(dir, 'sync-cursor.json'), JSON.stringify({ remote, event_id: 1, log_bytes: line.length, with_record: true }));
    expect(mayHavePending(home, remote)).toBe(true);
  });

  it('finds nothing once the cursor of this store saw the log whole, but a cursor of another store counts for nothing', () => {
    const line = '{"type":"session_started","event_id":1}\n';
    const { home, dir } = homeWithLog(line);
    writeFileSync(join(dir, 'sync-cursor.json'), JSON.stringify({ remote, event_id: 1, log_bytes: line.length, with_record: true }));
    expect(mayHavePending(home, remote)).toBe(false);
    expect(mayHavePending(home, 'postgres://other:5432/acode')).toBe(true);
  });
});
