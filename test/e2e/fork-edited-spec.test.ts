import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `acode fork <id> --spec edited.yaml`: edit a prompt and run again, paying only for what changed.
 * A completed step whose prompt as rendered, agent, model and tools are what they were is reused;
 * every other step runs against the loopback server, whose deterministic answers depend on the
 * input, so a changed step changes what the steps after it are asked.
 */
const openai = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => {
  ({ server, baseUrl } = openai.current());
});

function specText(model = 'local-test-model'): string {
  return [
    'version: 0',
    'name: edit-and-rerun',
    'runtime:',
    '  provider: openai',
    `  model_id: ${model}`,
    `  host: ${baseUrl}`,
    'agents:',
    '  researcher: { prompt: "You research." }',
    '  analyst: { prompt: "You analyse." }',
    '  writer: { prompt: "You write." }',
    'inputs:',
    '  values: { topic: durable agents }',
    'pattern:',
    '  type: chain',
    '  config:',
    '    steps:',
    '      - { agent: researcher, input: "Step 0: research {{ topic }}" }',
    '      - { agent: analyst, input: "Step 1: analyse {{ steps[0].response }}" }',
    '      - { agent: writer, input: "Step 2: write from {{ steps[1].response }}" }',
    '',
  ].join('\n');
}

async function ranOnce() {
  const cwd = tempDir();
  const ws = { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-test-key' } };
  writeFileSync(join(cwd, 'spec.yaml'), specText());
  const run = await runCli(['run', 'spec.yaml', '--json'], ws);
  expect(run.code, run.stderr).toBe(0);
  const id = (JSON.parse(run.stdout) as { session_id: string }).session_id;
  server.requests.length = 0;
  return { ws, id };
}

/** Forks `id` with `edited` as its spec; the steps the server was asked for, by number. */
async function forkWith(ws: { cwd: string; env: Record<string, string> }, id: string, edited: string, ...flags: string[]) {
  writeFileSync(join(ws.cwd, 'edited.yaml'), edited);
  const fork = await runCli(['fork', id, '--spec', 'edited.yaml', ...flags], ws);
  expect(fork.code, fork.stderr).toBe(0);
  return { fork, asked: server.requests.map((request) => request.step) };
}

describe('acode fork --spec', () => {
  it('reuses the steps before an edited prompt and runs the edited step and those that read it', async () => {
    const { ws, id } = await ranOnce();
    const { fork, asked } = await forkWith(ws, id, specText().replace('Step 1: analyse', 'Step 1: analyse critically'));
    expect(asked).toEqual([1, 2]);
    expect(server.requests[0]!.user).toMatch(/^Step 1: analyse critically answer 0: /);
    expect(fork.stderr).toContain(`acode: forked session ${id} → `);
    expect(fork.stderr).toContain(`fork of ${id} running edited.yaml: 3 steps, each reused where its input is unchanged`);
    expect(fork.stderr).not.toContain('resuming');
    expect(fork.stderr).toContain(`↷ step 1/3 researcher reused from session ${id}: its input is unchanged`);
    expect(fork.stderr).toMatch(/▶ step 2\/3 analyst/);
    // Its closing line counts the step taken from the source as reused, not skipped.
    expect(fork.stderr).toContain(`✓ completed: 3 steps (2 executed, 1 reused from ${id})`);
  });

  it("runs only the step whose agent's system prompt changed when its answer leaves the rest unchanged", async () => {
    const { ws, id } = await ranOnce();
    const { asked } = await forkWith(ws, id, specText().replace('You write.', 'You write tersely.'));
    expect(asked).toEqual([2]);
    expect(server.requests[0]!.system).toBe('You write tersely.');
  });

  it('reuses every step of an unchanged spec, and none when the model changed', async () => {
    const { ws, id } = await ranOnce();
    expect((await forkWith(ws, id, specText())).asked).toEqual([]);
    server.models = undefined;
    expect((await forkWith(ws, id, specText('another-model'))).asked).toEqual([0, 1, 2]);
  });

  it('runs step S again with --from-step, reusing by input only the steps that do not depend on it', async () => {
    const { ws, id } = await ranOnce();
    expect((await forkWith(ws, id, specText(), '--from-step', '2')).asked).toEqual([1, 2]);
  });

  it('keeps the edited spec as the new session runs it, and refuses a spec with errors before creating a session', async () => {
    const { ws, id } = await ranOnce();
    const { fork } = await forkWith(ws, id, specText().replace('You write.', 'You write tersely.'), '--json');
    const forked = (JSON.parse(fork.stdout) as { session_id: string }).session_id;
    const shown = JSON.parse((await runCli(['sessions', 'show', forked, '--json'], ws)).stdout) as { spec_path: string };
    expect(shown.spec_path).toBe(join(ws.cwd, 'edited.yaml'));
    const listed = await runCli(['sessions', 'list', '--json'], ws);
    writeFileSync(join(ws.cwd, 'broken.yaml'), specText().replace('agent: writer', 'agent: editor'));
    const broken = await runCli(['fork', id, '--spec', 'broken.yaml'], ws);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("broken.yaml:19:");
    expect(broken.stderr).toContain("uses agent 'editor', which is not defined");
    expect((await runCli(['sessions', 'list', '--json'], ws)).stdout).toBe(listed.stdout);
    expect(readFileSync(join(ws.cwd, 'spec.yaml'), 'utf8')).toBe(specText());
  });

  it('--dry-run lists which steps would be reused and why each other one runs, calling no model and creating nothing', async () => {
    const { ws, id } = await ranOnce();
    writeFileSync(join(ws.cwd, 'edited.yaml'), specText().replace('You analyse.', 'You analyse, briefly.'));
    const listed = (await runCli(['sessions', 'list', '--json'], ws)).stdout;
    const dry = await runCli(['fork', id, '--spec', 'edited.yaml', '--dry-run'], ws);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n')).toEqual([
      `dry run: a fork of session ${id} running edited.yaml would reuse 1 of 3 steps; nothing was created or run`,
      '  ↷ step 1  researcher  reused: its input is unchanged',
      "  ▶ step 2  analyst     runs: its agent's system prompt changed",
      '  ▶ step 3  writer      runs: decided when the run reaches it: it follows a step that runs',
      '',
    ]);
    const json = JSON.parse((await runCli(['fork', id, '--spec', 'edited.yaml', '--dry-run', '--json'], ws)).stdout) as { steps: { step: string; reused: boolean }[] };
    expect(json.steps.map((step) => [step.step, step.reused])).toEqual([['1', true], ['2', false], ['3', false]]);
    expect(server.requests).toEqual([]);
    expect((await runCli(['sessions', 'list', '--json'], ws)).stdout).toBe(listed);
    // The fork itself: step 2 runs; this server's answer reads only the input, so step 3 is asked as before and reused.
    const { asked, fork } = await forkWith(ws, id, readFileSync(join(ws.cwd, 'edited.yaml'), 'utf8'));
    expect(asked).toEqual([1]);
    expect(fork.stderr).toContain(`↷ step 3/3 writer reused from session ${id}: its input is unchanged`);
  });

  it('a fork --spec killed mid-run and resumed still reuses the steps whose input is unchanged', async () => {
    const { ws, id } = await ranOnce();
    writeFileSync(join(ws.cwd, 'edited.yaml'), specText().replace('You analyse.', 'You analyse, briefly.'));
    // Step 2 hangs in the fork's first run: it is killed there, with step 3 not reached.
    let hang = true;
    server.handler = (request) => (request.step === 1 && hang ? { kind: 'hang' } : { kind: 'answer' });
    const fork = startCli(['fork', id, '--spec', 'edited.yaml'], ws);
    await server.waitFor((request) => request.step === 1);
    fork.child.kill('SIGKILL');
    expect((await fork.done).signal).toBe('SIGKILL');
    hang = false;
    server.requests.length = 0;
    const resumed = await runCli(['resume'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.requests.map((request) => request.step)).toEqual([1]);
    expect(resumed.stderr).toContain(`↷ step 3/3 writer reused from session ${id}: its input is unchanged`);
  });
});
