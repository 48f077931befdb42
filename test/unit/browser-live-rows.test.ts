import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { generatedStore } from '../helpers/browser-fixture.js';

describe("the browser's live rows", () => {
  it('a run killed with kill -9 shows as interrupted at the next look, though it changed no file', async () => {
    const { ctx } = generatedStore(14);
    const first = await createSessionSource(ctx);
    const running = first.initial.rows.find((row) => row.status === 'running');
    if (!running) throw new Error('the generated store has no running session');
    // A process drives it: its lock names a live pid with a fresh heartbeat.
    const owner = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const now = new Date().toISOString();
      writeFileSync(join(ctx.env.ACODE_HOME!, 'sessions', running.session_id, 'lock'), JSON.stringify({ pid: owner.pid, host: hostname(), proc_start: null, started_at: now, heartbeat_at: now, token: 't' }));
      const source = await createSessionSource(ctx);
      const rows = (await source.poll()) ?? source.initial.rows;
      expect(rows.find((row) => row.session_id === running.session_id)?.interrupted).toBe(false);
      expect(await source.poll()).toBeNull(); // nothing changed: a look costs a few stats
      owner.kill('SIGKILL');
      await once(owner, 'exit');
      const after = await source.poll();
      expect(after?.find((row) => row.session_id === running.session_id)?.interrupted).toBe(true);
    } finally {
      owner.kill('SIGKILL');
    }
  });
});
