import { spawn } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs vitest itself on the completion tests with a PATH holding node alone (no fish, no zsh), as on
 * a machine where a newcomer installed Node and nothing else.
 */
function completionTestsWithNodeAlone(extra: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const bin = tempDir();
  symlinkSync(process.execPath, join(bin, 'node'));
  // Only what a shell needs to start vitest: nothing the parent run (a worker of vitest) set.
  const env: Record<string, string> = { PATH: bin, HOME: process.env.HOME ?? '/root', NO_COLOR: '1', ...extra };
  const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/e2e/cli-habits.test.ts', '-t', 'in (fish|zsh)', '--reporter=verbose'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('tests that need a program the machine lacks', () => {
  it('skip, each saying which program, and the run ends with one line naming them and the install command', async () => {
    const { code, output } = await completionTestsWithNodeAlone({});
    expect(code, output).toBe(0);
    expect(output).toMatch(/↓ .*in fish.*\[needs fish, not installed\]/);
    expect(output).toMatch(/↓ .*in zsh.*\[needs zsh, not installed\]/);
    const closing = output.split('\n').filter((line) => line.startsWith('Skipped the tests that need'));
    expect(closing).toEqual(['Skipped the tests that need fish, zsh (not installed): apt-get install fish zsh (Debian, Ubuntu) or brew install fish zsh (macOS), then run them again. CI sets ACODE_REQUIRE_ALL_TOOLS=1 to fail instead.']);
  }, 60_000);

  it('fail instead under ACODE_REQUIRE_ALL_TOOLS=1, as CI runs them', async () => {
    const { code, output } = await completionTestsWithNodeAlone({ ACODE_REQUIRE_ALL_TOOLS: '1' });
    expect(code, output).toBe(1);
    expect(output).toContain('this test needs fish, which is not on PATH, and ACODE_REQUIRE_ALL_TOOLS=1 forbids skipping it');
    expect(output).toContain('this test needs zsh, which is not on PATH');
    expect(output).not.toContain('Skipped the tests that need');
  }, 60_000);
});
