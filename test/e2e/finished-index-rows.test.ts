import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { homeWithSession } from '../helpers/home-with-session.js';


describe("a finished session's index row", () => {
  it('is never rewritten from its files: a listing does not re-read a completed session', async () => {
    const s = await homeWithSession();
    const file = join(s.home, 'sessions', s.id, 'session.json');
    const record = JSON.parse(readFileSync(file, 'utf8')) as { workflow_name: string };
    expect(record.workflow_name).toBe('e2e-chain');
    // Changed behind acode's back (mtime too): a row re-read would show it.
    writeFileSync(file, JSON.stringify({ ...record, workflow_name: 'edited-by-hand' }));
    const listed = await runCli(['sessions', 'list', '--json'], s);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { session_id: string; workflow_name: string }[]).map((row) => [row.session_id, row.workflow_name])).toEqual([[s.id, 'e2e-chain']]);
  });
});
