import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
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
    expect(fork.stderr).toContain(`↷ step 1/3 researcher reused from session ${id}: its input is unchanged`);
    expect(fork.stderr).toMatch(/▶ step 2\/3 analyst/);
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
});
