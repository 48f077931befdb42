import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { cliPath, runCli, startCli } from '../helpers/cli.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

const key = 'sk-test-stream-echo-0123456789abcdef';
const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
/** When the server wrote the last event of each step's stream ([DONE]), by step. */
let finishedAt: Map<number, number>;
beforeEach(() => {
  ({ server, baseUrl } = fixture.current());
  finishedAt = new Map();
  server.streamPieceChars = 4;
  server.streamDelayMs = 20;
});

/** A step's answer: ten lines, the last of which echoes the key in use. */
const answer = (step: number) => `${Array.from({ length: 9 }, (_, i) => `step ${step} line ${i + 1} of the streamed answer`).join('\n')}\nthe key was ${key}\nend of step ${step}`;

function workspace(steps = 2) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps, provider: 'openai', host: baseUrl }));
  server.handler = (r) => {
    server.onStreamEvent = (event, at) => {
      if (event.includes('[DONE]')) finishedAt.set(r.step, at);
    };
    return { kind: 'answer', text: answer(r.step) };
  };
  return { cwd, home, env: { ACODE_HOME: home, OPENAI_API_KEY: key } };
}

describe('acode run --stream without a terminal', () => {
  it('prints each step’s answer on stdout as it arrives, redacted, with progress lines on stderr', async () => {
    const ws = workspace();
    const run = startCli(['run', 'spec.yaml', '--stream'], ws);
    let firstTextAt = 0;
    run.child.stdout!.on('data', (chunk: Buffer) => {
      if (!firstTextAt && chunk.toString().includes('step 0 line 1')) firstTextAt = Date.now();
    });
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    // The first line was on stdout while the server was still sending the rest of step 0's answer.
    expect(firstTextAt).toBeGreaterThan(0);
    expect(firstTextAt).toBeLessThan(finishedAt.get(0)!);
    const redacted = (step: number) => answer(step).replace(key, '[REDACTED]');
    // Each answer under a header naming its step, so a reader of the pipe knows whose text follows.
    expect(result.stdout).toBe(`── step 1/2 worker ──\n${redacted(0)}\n── step 2/2 worker ──\n${redacted(1)}\n`);
    expect(result.stdout + result.stderr).not.toContain('0123456789abcdef');
    expect(result.stderr).toMatch(/▶ step 1\/2 worker\n✓ step 1\/2 worker/);
  });

  it('refuses --stream with --json (both write to stdout) before anything is written', async () => {
    const ws = workspace();
    const result = await runCli(['run', 'spec.yaml', '--stream', '--json'], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--stream and --json both write to stdout');
    expect(existsSync(ws.home)).toBe(false);
  });
});

describe('a kill -9 while a step streams', () => {
  it('journals nothing of the half-streamed answer; resume asks the step again and journals it once, whole', async () => {
    const ws = workspace(2);
    // Step 1 streams a few pieces and then never ends.
    const streamed = answer(1);
    server.handler = (r) => (r.step === 1 ? { kind: 'cut', text: streamed, after: 12, how: 'hang' } : { kind: 'answer', text: answer(r.step) });
    const run = startCli(['run', 'spec.yaml', '--stream'], ws);
    let out = '';
    run.child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await expect.poll(() => out.includes('step 1 line 1'), { timeout: 10_000 }).toBe(true);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');

    const [id] = readdirSync(join(ws.home, 'sessions'));
    const dir = join(ws.home, 'sessions', id!);
    const log = () => readFileSync(join(dir, 'events.jsonl'), 'utf8');
    expect(log()).not.toContain('step 1 line 1');
    expect(readFileSync(join(dir, 'session.json'), 'utf8')).not.toContain('step 1 line 1');
    expect(log()).not.toMatch(/"type":"step_completed"[^\n]*"step":"1"/);

    server.handler = (r) => ({ kind: 'answer', text: answer(r.step) });
    const resumed = await runCli(['resume', id!, '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.countByStep()).toEqual({ 0: 1, 1: 2 });
    const completions = log()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; step?: string; response?: string })
      .filter((event) => event.type === 'step_completed' && event.step === '1');
    expect(completions).toHaveLength(1);
    expect(completions[0]!.response).toBe(answer(1).replace(key, '[REDACTED]'));
  });
});

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

describe('the run view in a real terminal', () => {
  it('shows a step’s answer streaming before the step completes, then the step done', async () => {
    const ws = workspace(1);
    server.streamDelayMs = 40;
    terminal = new TmuxTerminal(ws.cwd, { ...ws.env, PATH: process.env.PATH ?? '' }, { columns: 100, rows: 30 });
    terminal.run(`node ${cliPath} run spec.yaml; echo "EXIT=$?"`);
    const partial = await terminal.waitFor((s) => s.includes('│ step 0 line 2'));
    // Seen while the server was still sending: the step has not completed.
    expect(finishedAt.has(0)).toBe(false);
    expect(partial).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] +1 worker \d+\.\ds/);
    expect(partial).not.toContain('1/1 done');
    const done = await terminal.waitFor((s) => /EXIT=\d+/.test(s), 20_000);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/✓ +1 worker/);
    expect(done).not.toContain('0123456789abcdef');
  });
});

/** A parallel run of `count` one-step branches, all allowed to run at once. */
function parallelSpec(host: string, count: number): string {
  const branches = Array.from({ length: count }, (_, i) => `      - { id: b${i}, steps: [ { agent: w, input: "Step ${i}: go" } ] }`);
  return ['version: 0', 'name: wide', 'runtime:', '  provider: openai', '  model_id: m', `  host: ${host}`, `  max_parallel: ${count}`, 'agents:', '  w: { prompt: "worker" }', 'pattern:', '  type: parallel', '  config:', '    branches:', ...branches, ''].join('\n');
}

describe('many model calls streaming at once', () => {
  it('a run with 11 branches streaming at once writes no Node warning to the terminal (each call adds an abort listener to the run’s one signal)', async () => {
    // Every call waits before it answers, so all 11 are in flight together.
    server.latencyMs = 200;
    server.streamDelayMs = 5;
    server.streamPieceChars = 4;
    server.handler = () => ({ kind: 'answer', text: 'an answer in a few small pieces' });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'spec.yaml'), parallelSpec(baseUrl, 11));
    const result = await runCli(['run', 'spec.yaml', '--stream'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-test-review-0123456789abcdef' } });
    expect(result.code, result.stderr).toBe(0);
    // With fetch 12 calls on one signal printed nothing; node:http's request
    // keeps a listener on the signal per call, and the 11th trips MaxListenersExceededWarning — on
    // stderr, which in a terminal is written across the live run view.
    expect(result.stderr).not.toContain('MaxListenersExceededWarning');
  });
});
