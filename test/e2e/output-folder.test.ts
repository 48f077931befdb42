import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const examples = fileURLToPath(new URL('../../examples', import.meta.url));

describe('an output folder the file system will not take', () => {
  // Node 20's recursive mkdir loops for ever where mkdir fails with ENOENT though the folder above
  // exists: `--out /proc/x` held a finished run at 100% CPU, deaf to SIGTERM; `--out /proc/self/fd`
  // ended in a stack trace. Each now pauses with every step kept, saying why.
  it.each(['/proc/acode-no-such-folder', '/proc/self/fd'])('--out %s: the run pauses at its artifacts, steps kept, no stack trace', async (out) => {
    const cwd = tempDir();
    const home = join(cwd, 'home');
    writeFileSync(join(cwd, 'spec.yaml'), readFileSync(join(examples, 'chain-3-step-resume-demo.yaml'), 'utf8'));
    const result = await runCli(['run', 'spec.yaml', '--out', out], { cwd, env: { ACODE_HOME: home } });
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).toMatch(/paused: artifact: /);
    expect(result.stderr).toContain('3 steps (3 executed, 0 skipped)');
  });
});
