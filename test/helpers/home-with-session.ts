import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { chainSpec } from './chain-spec.js';
import { runCli } from './cli.js';
import { tempDir } from './temp-dir.js';

/** A home with one finished one-step session, listed once so the index has its row. */
export async function homeWithSession(): Promise<{ cwd: string; home: string; env: { ACODE_HOME: string }; id: string }> {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  const env = { ACODE_HOME: home };
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'scripted' }));
  const ran = await runCli(['run', 'spec.yaml'], { cwd, env });
  expect(ran.code, ran.stderr).toBe(0);
  const listed = await runCli(['sessions', 'list', '--json'], { cwd, env });
  const id = (JSON.parse(listed.stdout) as { session_id: string }[])[0]!.session_id;
  return { cwd, home, env, id };
}
