import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A session snapshots the agents its spec's $refs named: a resume runs them as they were. */

const openai = openAiServerPerTest();

const spec = (host: string) => `version: 0
name: refs
runtime:
  provider: openai
  model_id: m1
  host: "${host}"
  budgets: { max_steps: 1 }
agents:
  writer:
    $ref: ../agents/writer.yaml
pattern:
  type: chain
  config:
    steps:
      - { agent: writer, input: "Step 0: draft" }
      - { agent: writer, input: "Step 1: polish {{ steps[0].response }}" }
`;

describe('agents.<id>.$ref in a session', () => {
  it('resumes with the agent the session started with, not the file as edited since', async () => {
    const { server, baseUrl } = openai.current();
    const cwd = tempDir();
    mkdirSync(join(cwd, 'specs'));
    mkdirSync(join(cwd, 'agents'));
    writeFileSync(join(cwd, 'specs', 'spec.yaml'), spec(baseUrl));
    writeFileSync(join(cwd, 'agents', 'writer.yaml'), 'agents:\n  writer:\n    prompt: "You write, version one."\n');
    const ws = { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-ref-Q7vX2mLp9RzT4wKd8NfB' } };

    const run = await runCli(['run', 'specs/spec.yaml', '--json'], ws);
    expect(run.code, run.stderr).toBe(1);
    const { session_id: id } = JSON.parse(run.stdout) as { session_id: string };
    writeFileSync(join(cwd, 'agents', 'writer.yaml'), 'agents:\n  writer:\n    prompt: "You write, version TWO."\n');

    const resumed = await runCli(['resume', id, '--json', '--set', 'runtime.budgets.max_steps=2'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.requests.map((r) => [r.step, r.system])).toEqual([[0, 'You write, version one.'], [1, 'You write, version one.']]);
    // A new run reads the file again.
    writeFileSync(join(cwd, 'specs', 'spec.yaml'), spec(baseUrl).replace('max_steps: 1', 'max_steps: 5'));
    expect((await runCli(['run', 'specs/spec.yaml', '--json'], ws)).code).toBe(0);
    expect(server.requests.at(-1)!.system).toBe('You write, version TWO.');
  });
});
