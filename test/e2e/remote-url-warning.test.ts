import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const occurrences = (text: string, piece: string) => text.split(piece).length - 1;

describe('an ACODE_REMOTE_URL that cannot be used', () => {
  it.each([
    ['https://acode:S3cretPassw0rd@db.example/acode', 'ACODE_REMOTE_URL must be a postgres:// URL'],
    ['S3cretPassw0rd pasted here', 'ACODE_REMOTE_URL is not a URL'],
  ])('is said once by a resume, whose claim and run both look for the store, and the resume runs here (%s)', async (url, warning) => {
    const cwd = tempDir();
    const env = { ACODE_HOME: join(cwd, 'home') };
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 3, provider: 'scripted', budget: 40 }));
    const paused = await runCli(['run', 'spec.yaml', '--json'], { cwd, env });
    const { session_id: id, status } = JSON.parse(paused.stdout) as { session_id: string; status: string };
    expect(status).toBe('paused');
    const resumed = await runCli(['resume', id, '--set', 'runtime.budgets.max_tokens=100000'], { cwd, env: { ...env, ACODE_REMOTE_URL: url } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(occurrences(resumed.stderr, warning), resumed.stderr).toBe(1);
    expect(resumed.stderr).toContain('; the team store is not used (local sessions are unaffected)');
    expect(resumed.stderr).not.toContain('S3cretPassw0rd');
  });
});
