import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('resume --dry-run exits as the resume would', () => {
  it('exits 16 for a session a live process runs, as the resume is refused, and 0 once it may go on', async () => {
    const cwd = tempDir();
    const ws = { cwd, env: { ACODE_HOME: join(tempDir(), 'home') } };
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 2, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 20000' }));
    const run = startCli(['run', 'spec.yaml'], ws);
    const id = await new Promise<string>((resolve) => run.child.stderr!.on('data', (chunk: Buffer) => {
      const match = /^acode: session ([0-9a-f]{16}) /m.exec(chunk.toString());
      if (match) resolve(match[1]!);
    }));
    try {
      const dry = await runCli(['resume', id, '--dry-run'], ws);
      const real = await runCli(['resume', id], ws);
      expect(real.code).toBe(16);
      expect(dry.code, dry.stderr).toBe(16);
      expect(dry.stdout).toContain(`would resume session ${id}`);
      expect(dry.stderr).toContain(`ACODE-RESUME-003: dry run: the resume would stop here (exit 16): session ${id} is in use by pid ${run.child.pid}`);
    } finally {
      run.child.kill('SIGKILL');
      await run.done;
    }
    // Killed: its lock is stale, the resume would take it over.
    const dry = await runCli(['resume', id, '--dry-run'], ws);
    expect(dry.code, dry.stderr).toBe(0);
  });

  it('exits 15 for a finished session, as the resume is refused', async () => {
    const cwd = tempDir();
    const ws = { cwd, env: { ACODE_HOME: join(tempDir(), 'home') } };
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'scripted' }));
    const id = (JSON.parse((await runCli(['run', 'spec.yaml', '--json'], ws)).stdout) as { session_id: string }).session_id;
    const dry = await runCli(['resume', id, '--dry-run'], ws);
    expect((await runCli(['resume', id], ws)).code).toBe(15);
    expect(dry.code, dry.stderr).toBe(15);
    expect(dry.stderr).toContain('ACODE-RESUME-002');
  });
});
