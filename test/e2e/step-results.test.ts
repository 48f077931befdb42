import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { stepFacts } from '../../source/state/step-detail-lines.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli } from '../helpers/cli.js';
import { openAiServerPerTest, type ChatRequest, type OpenAiTestServer, type Reply } from '../helpers/openai-server.js';
import { requestServers } from '../helpers/request-servers.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const openai = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => {
  ({ server, baseUrl } = openai.current());
});

/** A three-step chain whose worker reads a file (one tool round) before it answers: two model calls a step. */
function workspace(model: string) {
  const root = tempDir();
  const cwd = join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'notes.txt'), 'line one\nline two\n');
  const spec = [
    'version: 0',
    'name: step-results',
    'runtime:',
    '  provider: openai',
    `  model_id: ${model}`,
    `  host: ${baseUrl}`,
    'agents:',
    '  worker: { prompt: "You read notes.", tools: [file_read] }',
    'pattern:',
    '  type: chain',
    '  config:',
    '    steps:',
    ...[0, 1, 2].map((k) => `      - { agent: worker, input: "Step ${k}: read notes.txt" }`),
    '',
  ].join('\n');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, env: { ACODE_HOME: join(root, 'home'), OPENAI_API_KEY: 'sk-test-key' } };
}

/** The first call of a step asks for the file; the second, with the tool's answer in, answers in two lines. */
const readThenAnswer = (r: ChatRequest): Reply =>
  r.body.messages.some((m) => m.role === 'tool')
    ? { kind: 'answer', text: `Summary of step ${r.step}\nsecond line` }
    : { kind: 'tool_calls', calls: [{ id: `read_${r.step}`, name: 'file_read', args: { path: 'notes.txt' } }] };

interface ShownStep {
  id: string;
  status: string;
  attempt: number;
  tokens: { input: number; output: number };
  elapsed_ms: number;
  dollars: number | null;
  first_line: string;
}

async function show(ws: ReturnType<typeof workspace>, id: string) {
  const shown = await runCli(['sessions', 'show', id, '--json'], ws);
  expect(shown.code, shown.stderr).toBe(0);
  return JSON.parse(shown.stdout) as { checkpoint: { tokens: { input: number; output: number } }; dollars: number | null; steps: ShownStep[] };
}

const sessionIdOf = (stderr: string) => /session ([0-9a-f-]{8,})/.exec(stderr)![1]!;

describe('every step\'s result', () => {
  it('counts every model call of a step, so the steps add up to the session total', async () => {
    const ws = workspace('local-test-model');
    server.handler = readThenAnswer;
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(6);
    const id = sessionIdOf(run.stderr);
    const session = await show(ws, id);
    const sum = session.steps.reduce((total, step) => ({ input: total.input + step.tokens.input, output: total.output + step.tokens.output }), { input: 0, output: 0 });
    expect(sum).toEqual(session.checkpoint.tokens);
    // The tool round's call (10 in / 5 out, as the server reports it) is counted with the step's answer.
    const answer = 'Summary of step 0\nsecond line';
    expect(session.steps[0]).toMatchObject({ status: 'done', attempt: 1, tokens: { input: 10 + 'Step 0: read notes.txt'.length, output: 5 + answer.length }, dollars: null, first_line: 'Summary of step 0' });
    expect(session.steps[0]!.elapsed_ms).toBeGreaterThanOrEqual(0);
    // The plain ✓ lines say the same numbers as the closing total.
    const lines = [...run.stderr.matchAll(/✓ step \d+\/3 worker [\d.]+s · (\d+) in \/ (\d+) out/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(lines, run.stderr).toHaveLength(3);
    const closing = /tokens (\d+) in \/ (\d+) out/.exec(run.stderr.split('\n').filter((line) => line.includes('tokens')).at(-1)!)!;
    expect([lines.reduce((a, l) => a + l[0]!, 0), lines.reduce((a, l) => a + l[1]!, 0)]).toEqual([Number(closing[1]), Number(closing[2])]);
  });

  it('lists every step with its attempt, time, tokens and first line', async () => {
    const ws = workspace('local-test-model');
    server.handler = readThenAnswer;
    const run = await runCli(['run', 'spec.yaml'], ws);
    const shown = await runCli(['sessions', 'show', sessionIdOf(run.stderr)], ws);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/✓ 1 {2}worker {2}done {2}attempt 1 {2}[\d.]+s {2}\d+ in \/ \d+ out {2}Summary of step 0\n/);
    expect(shown.stdout).toMatch(/✓ 3 {2}worker {2}done {2}attempt 1 .* Summary of step 2\n/);
    expect(shown.stdout).not.toContain('$');
  });

  it('prints one step\'s whole response and its tool calls with --step', async () => {
    const ws = workspace('local-test-model');
    server.handler = readThenAnswer;
    const run = await runCli(['run', 'spec.yaml'], ws);
    const id = sessionIdOf(run.stderr);
    const shown = await runCli(['sessions', 'show', id, '--step', '2'], ws);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('step      2 · worker');
    expect(shown.stdout).toContain('response\n  Summary of step 1\n  second line\n');
    expect(shown.stdout).toContain('tool calls (1)\n  → file_read notes.txt  ok\n      line one\n      line two');
    const json = await runCli(['sessions', 'show', id, '--step', '2', '--json'], ws);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: '2', status: 'done', response: 'Summary of step 1\nsecond line', tool_calls: [{ name: 'file_read', ok: true, args: { path: 'notes.txt' } }] });
  });

  it('shows both sides of a step: the prompt as rendered and sent, then the response; redacted like everything', async () => {
    const ws = workspace('local-test-model');
    const secret = 'tok-Q7vX2mLp9RzT4wKd8NfB';
    // The second step's input is a template: it reads the first step's answer and a --var holding a secret.
    const spec = join(ws.cwd, 'spec.yaml');
    writeFileSync(spec, readFileSync(spec, 'utf8').replace('"Step 1: read notes.txt"', '"Step 1: about {{ topic }}, after: {{ steps[0].response }}"') + 'env:\n  secrets:\n    - { key: TEAM_TOKEN, source: env }\n');
    server.handler = () => ({ kind: 'answer', text: 'Noted.' });
    const env = { ...ws.env, TEAM_TOKEN: secret };
    const run = await runCli(['run', 'spec.yaml', '--var', `topic=${secret}`], { ...ws, env });
    expect(run.code, run.stderr).toBe(0);
    const id = sessionIdOf(run.stderr);
    // What the server was sent, with the secret in it: the view shows the same, the secret redacted.
    const sent = server.requests.find((request) => request.step === 1)!;
    expect(sent.user).toBe(`Step 1: about ${secret}, after: Noted.`);
    const shown = await runCli(['sessions', 'show', id, '--step', '2'], { ...ws, env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('system prompt\n  You read notes.\ninput\n  Step 1: about [REDACTED], after: Noted.\nresponse\n  Noted.\n');
    const json = JSON.parse((await runCli(['sessions', 'show', id, '--step', '2', '--json'], { ...ws, env })).stdout) as { prompt: unknown };
    expect(json.prompt).toEqual({ system: 'You read notes.', input: 'Step 1: about [REDACTED], after: Noted.' });
    const history = JSON.parse((await runCli(['sessions', 'history', id, '--json'], { ...ws, env })).stdout) as { type: string; step?: string; prompt?: unknown }[];
    expect(history.find((event) => event.type === 'step_started' && event.step === '2')?.prompt).toEqual(json.prompt);
    expect(JSON.stringify(history)).not.toContain(secret);
  });

  it('shows a killed step\'s time as long as its process was seen alive, never 0.0s, and counts it after the resume', async () => {
    const cwd = tempDir();
    const home = join(tempDir(), 'home');
    mkdirSync(home, { recursive: true });
    // A heartbeat every 500 ms (a quarter of the lock timeout): the time a killed step ran is known to half a second.
    writeFileSync(join(home, 'config.yml'), 'resume:\n  lock_timeout_seconds: 2\n');
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 4000' }));
    const ws = { cwd, env: { ACODE_HOME: home } };
    const run = startCli(['run', 'spec.yaml'], ws);
    await new Promise<void>((resolve) => run.child.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('▶ step 1/1') && resolve()));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    run.child.kill('SIGKILL');
    await run.done;
    const id = /session ([0-9a-f]{16})/.exec((await run.done).stderr)![1]!;
    const killed = (await runCli(['sessions', 'show', id], ws)).stdout.split('\n').find((line) => /^\s+✗ 1\s/.test(line))!;
    expect(killed).toMatch(/interrupted +attempt 1 +≥ (\d+\.\d)s/);
    expect(Number(/≥ (\d+\.\d)s/.exec(killed)![1])).toBeGreaterThanOrEqual(1.5);
    expect((await runCli(['sessions', 'show', id, '--step', '1'], ws)).stdout).toMatch(/^elapsed +≥ [1-9]/m);
    // The browser's step view counts it the same way, from the same heartbeat (it said "time unknown (killed)").
    const source = await createSessionSource({ stdout: process.stdout, stderr: process.stderr, interactive: false, color: false, env: { ACODE_HOME: home }, cwd, hardExit: () => { throw new Error('hardExit'); }, confirm: async () => false });
    const viewed = (await source.steps(id, true)).steps[0]!;
    const { state, facts } = stepFacts(viewed.step, viewed.result, viewed.dollars);
    expect(state).toBe('interrupted');
    expect(facts).toContain(`≥ ${/≥ (\d+\.\ds)/.exec(killed)![1]}`);
    // The resume journals when the process it took over from was last alive: the killed attempt's time stays counted.
    expect((await runCli(['resume', id], ws)).code).toBe(0);
    const step = JSON.parse((await runCli(['sessions', 'show', id, '--step', '1', '--json'], ws)).stdout) as { elapsed_ms: number; attempt: number };
    expect(step.attempt).toBe(2);
    expect(step.elapsed_ms).toBeGreaterThanOrEqual(4000 + 1500);
  });

  it('refuses an unknown --step, naming the valid ones', async () => {
    const ws = workspace('local-test-model');
    server.handler = readThenAnswer;
    const run = await runCli(['run', 'spec.yaml'], ws);
    const shown = await runCli(['sessions', 'show', sessionIdOf(run.stderr), '--step', '7'], ws);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toContain('--step 7: no such step');
    expect(shown.stderr).toContain('1-3');
  });

  it('prices the steps of a model the price table knows', async () => {
    const ws = workspace('gpt-4o-mini');
    server.handler = readThenAnswer;
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    const id = sessionIdOf(run.stderr);
    const session = await show(ws, id);
    // gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
    const expected = (session.checkpoint.tokens.input * 0.15 + session.checkpoint.tokens.output * 0.6) / 1e6;
    // --json rounds dollars to a millionth (docs/commands.md): within half a millionth of the exact sum.
    expect(Math.abs(session.dollars! - expected)).toBeLessThanOrEqual(5e-7);
    expect(session.steps.every((step) => step.dollars !== null && step.dollars > 0)).toBe(true);
    // Rounded to what a price per million tokens means: no float noise (0.000024149999999999997).
    const raw = (await runCli(['sessions', 'show', id, '--json'], ws)).stdout;
    const amounts = [...raw.matchAll(/"dollars": ([^,\n}]+)/g)].map((m) => m[1]!);
    expect(amounts).toHaveLength(4);
    for (const amount of amounts) expect(amount).toMatch(/^\d+(\.\d{1,10})?(e-\d+)?$/);
    expect((JSON.parse((await runCli(['sessions', 'show', id, '--step', '1', '--json'], ws)).stdout) as { dollars: number }).dollars.toString()).toMatch(/^\d+(\.\d{1,10})?(e-\d+)?$/);
    // The closing line prices the run the same way.
    const closing = run.stderr.split('\n').find((line) => line.includes('completed: 3 steps'))!;
    expect(closing).toMatch(/ · this run ≈ \$0\.\d+$/);
    const text = await runCli(['sessions', 'show', id], ws);
    expect(text.stdout).toMatch(/tokens {4}\d+ in \/ \d+ out ≈ \$0\.\d+\n/);
    expect(text.stdout).toMatch(/✓ 1 {2}worker .* out ≈ \$0\.\d+ {2}Summary of step 0/);
  });

  it('says what a resume saved by skipping the steps completed before', async () => {
    const ws = workspace('gpt-4o-mini');
    let refused = false;
    // Step 2's first call is refused once (401 pauses the session), then everything is answered.
    server.handler = (r) => {
      if (r.step === 2 && !refused) {
        refused = true;
        return { kind: 'error', status: 401, body: { error: { message: 'invalid key' } } };
      }
      return readThenAnswer(r);
    };
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code).toBe(1);
    const id = sessionIdOf(run.stderr);
    const before = await show(ws, id);
    const spent = before.steps.slice(0, 2).reduce((total, step) => total + step.tokens.input + step.tokens.output, 0);
    const resumed = await runCli(['resume', id], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    const saved = /resume saved ≈ \$(\S+), 2 of 3 steps \(([\d,]+) tokens\)/.exec(resumed.stderr);
    expect(saved, resumed.stderr).not.toBeNull();
    expect(Number(saved![2]!.replace(/,/g, ''))).toBe(spent);
    expect(Number(saved![1])).toBeGreaterThan(0);
  });

  it('says what a resume saved in tokens when the model has no known price', async () => {
    const ws = workspace('local-test-model');
    let refused = false;
    server.handler = (r) => {
      if (r.step === 1 && !refused) {
        refused = true;
        return { kind: 'error', status: 401, body: { error: { message: 'invalid key' } } };
      }
      return readThenAnswer(r);
    };
    const run = await runCli(['run', 'spec.yaml'], ws);
    const resumed = await runCli(['resume', sessionIdOf(run.stderr)], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/tokens \d+ in \/ \d+ out · resume saved [\d,]+ tokens, 1 of 3 steps$/m);
    expect(resumed.stderr).not.toContain('$');
  });
});

/** A folder holding `spec` as spec.yaml, and a store of its own. */
function specWorkspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } as Record<string, string> };
}

const listen = requestServers();

describe('what a step of several model calls cost', () => {
  // Was a defect (fixed: sessions show and the step view price a step call by call, step-results.ts `calls`): a step was priced
  // on the sum of its model calls' tokens, but price tiers apply per request (Claude Sonnet 4.5: $3/M input up to 200k tokens a request,
  // $6/M above). Two calls of 150k input tokens each cost 2 × $0.45 = $0.90; sessions show prices the 300k sum at the long-context
  // rate, $1.80 — twice what the run itself said ('this run ≈ $0.90', priced per call).
  it('a step of two 150k-token calls is priced per call, as the run priced it', async () => {
    const origin = await listen((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        // The model check at run start asks for the model list: this server has none, as some do not.
        if (req.method !== 'POST') return void res.writeHead(404).end();
        const body = JSON.parse(raw || '{}') as { model: string; messages: { role: string; content: unknown }[] };
        const answered = body.messages.some((m) => Array.isArray(m.content) && (m.content as { type: string }[]).some((b) => b.type === 'tool_result'));
        const content = answered ? [{ type: 'text', text: 'the notes say hello' }] : [{ type: 'tool_use', id: 'toolu_1', name: 'file_read', input: { path: 'notes.txt' } }];
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content, stop_reason: answered ? 'end_turn' : 'tool_use', stop_sequence: null, usage: { input_tokens: 150_000, output_tokens: 0 } }),
        );
      });
    });
    const spec = [
      'version: 0',
      'name: priced',
      'runtime:',
      '  provider: anthropic',
      '  model_id: claude-sonnet-4-5',
      `  host: ${origin}`,
      'agents:',
      '  worker: { prompt: "You read notes.", tools: [file_read] }',
      'pattern:',
      '  type: chain',
      '  config:',
      '    steps:',
      '      - { agent: worker, input: "read notes.txt" }',
      '',
    ].join('\n');
    const ws = specWorkspace(spec);
    writeFileSync(join(ws.cwd, 'notes.txt'), 'hello\n');
    ws.env.ANTHROPIC_API_KEY = 'sk-ant-test-key-0123456789';
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('this run ≈ $0.90');
    const [record] = parseAllSessionFiles(ws.home);
    const shown = JSON.parse((await runCli(['sessions', 'show', record!.session_id, '--json'], ws)).stdout) as { dollars: number; steps: { dollars: number }[] };
    expect(shown.steps[0]!.dollars).toBeCloseTo(0.9, 6);
    expect(shown.dollars).toBeCloseTo(0.9, 6);
  });
});
