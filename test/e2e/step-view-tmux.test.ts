import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../helpers/cli.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

const openai = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
let terminal: TmuxTerminal | undefined;
beforeEach(() => {
  ({ server, baseUrl } = openai.current());
});
afterEach(() => terminal?.close());

/** Step 2's answer: 60 numbered lines, more than the screen holds. */
const longAnswer = Array.from({ length: 60 }, (_, i) => `answer line ${i + 1}`).join('\n');

/** A completed three-step chain on gpt-4o-mini (priced); step 2 reads a file before its long answer. */
async function completedSession() {
  const root = tempDir();
  const cwd = join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'notes.txt'), 'the notes\n');
  writeFileSync(
    join(cwd, 'spec.yaml'),
    [
      'version: 0',
      'name: step-view',
      'runtime:',
      '  provider: openai',
      '  model_id: gpt-4o-mini',
      `  host: ${baseUrl}`,
      'agents:',
      '  worker: { prompt: "You work.", tools: [file_read] }',
      'pattern:',
      '  type: chain',
      '  config:',
      '    steps:',
      ...[0, 1, 2].map((k) => `      - { agent: worker, input: "Step ${k}: go" }`),
      '',
    ].join('\n'),
  );
  server.handler = (r) => {
    if (r.step !== 1) return { kind: 'answer', text: `Short answer ${r.step}` };
    if (!r.body.messages.some((m) => m.role === 'tool')) return { kind: 'tool_calls', calls: [{ id: 'read_1', name: 'file_read', args: { path: 'notes.txt' } }] };
    return { kind: 'answer', text: longAnswer };
  };
  const env = { ACODE_HOME: join(root, 'home'), OPENAI_API_KEY: 'sk-test-key' };
  const run = await runCli(['run', 'spec.yaml'], { cwd, env });
  expect(run.code, run.stderr).toBe(0);
  return { cwd, env };
}

describe('the step view of the session browser, in a real terminal', () => {
  it('lists a finished session\'s steps, shows a step\'s whole response scrolled, and goes back with Esc', async () => {
    const { cwd, env } = await completedSession();
    terminal = new TmuxTerminal(cwd, { ...env, PATH: process.env.PATH ?? '' }, { columns: 120, rows: 24 });
    terminal.run(`node ${cliPath}; echo "EXIT=$?"`);
    await terminal.waitFor((s) => /❯ [0-9a-f]{8} step-view +completed +3\/3/.test(s));

    // Enter on a completed session: its steps, not an error.
    terminal.press('Enter');
    let screen = await terminal.waitFor((s) => s.includes('3 steps') && /❯ ✓ 1 +worker +done .*Short answer 0/.test(s) && /✓ 3 +worker +done .*Short answer 2/.test(s));
    expect(screen).toMatch(/✓ 2 +worker +done +attempt 1 +[\d.]+s +\d+ in \/ \d+ out ≈ \$0\.\d+ +answer line 1/);
    expect(screen).not.toContain('resumable');

    // r on a session that cannot be resumed says so, and stays.
    terminal.press('r');
    await terminal.waitFor((s) => s.includes('completed: nothing is left to resume') && s.includes('3 steps') === false);

    terminal.press('Down', 'Enter');
    screen = await terminal.waitFor((s) => s.includes('step 2: its response and tool calls') && s.includes('answer line 1') && /▼ \d+ more/.test(s));
    expect(screen).toContain('step      2 · worker');
    expect(screen).not.toContain('answer line 30');

    terminal.press('PageDown');
    screen = await terminal.waitFor((s) => /▲ \d+ more/.test(s) && s.includes('answer line 20'));
    expect(screen).not.toMatch(/answer line 1$/m);
    expect(screen).toContain('↑↓ move · r resume · f fork here · Esc back'); // in a response Enter opens nothing more
    terminal.press('G');
    // The end at once: the tool call under the response.
    screen = await terminal.waitFor((s) => s.includes('answer line 60') && s.includes('tool calls (1)') && s.includes('→ file_read notes.txt  ok'));
    terminal.press('g');
    await terminal.waitFor((s) => s.includes('answer line 1') && !/▲ \d+ more/.test(s));

    terminal.press('Escape');
    await terminal.waitFor((s) => s.includes('3 steps') && /❯ ✓ 2 +worker/.test(s) && s.includes('↑↓ move · Enter response · r resume · f fork here · Esc back'));
    terminal.press('G');
    await terminal.waitFor((s) => /❯ ✓ 3 +worker/.test(s));
    terminal.press('g');
    await terminal.waitFor((s) => /❯ ✓ 1 +worker/.test(s));
    terminal.press('Escape');
    await terminal.waitFor((s) => /❯ [0-9a-f]{8} step-view +completed +3\/3/.test(s) && s.includes('Enter resume · → steps'));
    terminal.press('q');
    screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=0');
  });
});

describe('f in the step view, in a real terminal', () => {
  it('forks a finished session from the selected step: the fork\'s plan, Enter runs it in the run view (step 1 reused, not asked again), and the browser opens on the new session', async () => {
    const { cwd, env } = await completedSession();
    server.requests.length = 0;
    terminal = new TmuxTerminal(cwd, { ...env, PATH: process.env.PATH ?? '' }, { columns: 120, rows: 30 });
    terminal.run(`node ${cliPath}; echo "EXIT=$?"`);
    await terminal.waitFor((s) => /❯ [0-9a-f]{8} step-view +completed +3\/3/.test(s));
    terminal.press('Enter'); // a completed session: its steps, saying why it cannot be resumed
    await terminal.waitFor((s) => s.includes('completed — nothing to resume; f forks it from the selected step to run again') && /❯ ✓ 1 +worker/.test(s));
    terminal.press('j');
    await terminal.waitFor((s) => /❯ ✓ 2 +worker/.test(s));
    terminal.press('f');
    let screen = await terminal.waitFor((s) => /Fork session [0-9a-f]{16} from step 2\?/.test(s) && s.includes('Enter start'));
    expect(screen).toContain('a new session, reusing 1 of 3 steps; this one stays as it is');
    expect(screen).toMatch(/↷ step 1 +worker +reused/);
    expect(screen).toMatch(/▶ step 3 +worker +runs/);
    const from = /Fork session ([0-9a-f]{16})/.exec(screen)![1]!;
    terminal.press('Enter');
    screen = await terminal.waitFor((s) => new RegExp(`the fork of ${from.slice(0, 8)} from step 2 is session [0-9a-f]{8}; it ended \\(exit 0\\)`).test(s.replace(/\s+/g, ' ')), 20_000);
    const forked = new RegExp(`from step 2 is session ([0-9a-f]{8})`).exec(screen.replace(/\s+/g, ' '))![1]!;
    // Two rows of one workflow without variables: each quotes its first step's input (the fork's is its source's).
    expect(screen).toMatch(new RegExp(`❯ ${forked} step-view · “Step 0: go” +completed +3/3`));
    // The fork asked the model for steps 2 and 3 only.
    expect(server.requests.filter((r) => r.step === 0)).toHaveLength(0);
    expect(server.requests.some((r) => r.step === 2)).toBe(true);
    terminal.press('q');
    screen = await terminal.waitFor((s) => /EXIT=\d+/.test(s));
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain(`acode: forked session ${from} → ${forked}`);
  }, 60_000);
});
