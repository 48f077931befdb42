import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

const spec = `version: 0
name: limited
runtime:
  provider: scripted
  scripted:
    faults:
      - { step: 0, kind: rate_limit, retry_after_s: 41, times: 1 }
agents:
  w: { prompt: "You work." }
pattern:
  type: chain
  config:
    steps:
      - { agent: w, input: "one" }
      - { agent: w, input: "two" }
`;

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

function start() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  terminal = new TmuxTerminal(cwd, { ACODE_HOME: home, PATH: process.env.PATH ?? '' }, { columns: 110, rows: 20 });
  terminal.run(`node ${cliPath} run spec.yaml; echo "EXIT=$?"`);
  return { terminal, home };
}

describe('the rate-limit countdown in a real terminal', () => {
  it('counts down from the retry-after, and r retries at once', async () => {
    const { terminal } = start();
    // Waits for the whole line: a capture can catch a frame half drawn.
    const screen = await terminal.waitFor((s) => /rate limited \(429, scripted\) — retry 1\/5 in \d+ s; r retry now · a abort/.test(s));
    expect(Number(/retry 1\/5 in (\d+) s/.exec(screen)![1])).toBeGreaterThanOrEqual(38);
    terminal.press('r');
    const done = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(done).toContain('EXIT=0');
    expect(done).toContain('✓ completed');
  });

  it('a abandons the wait: the session is paused and resumable', async () => {
    const { terminal, home } = start();
    await terminal.waitFor((s) => s.includes('retry 1/5 in'));
    terminal.press('a');
    const done = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(done).toContain('EXIT=1');
    expect(done).toMatch(/⏸ paused: step 1: .*the automatic retry was abandoned/);
    expect(parseAllSessionFiles(home)[0]!.checkpoint).toMatchObject({ status: 'paused', stop_reason: 'rate_limit', steps_done: 0 });
  });
});
