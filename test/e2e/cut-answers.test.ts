import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicServerPerTest } from '../helpers/anthropic-server.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * An answer that stopped at the model's output limit (runtime.max_tokens) is cut short, not
 * finished: the later steps get it as it is (asked again, the same input is cut the same way),
 * but every place that shows the step says so.
 */

const openai = openAiServerPerTest();
const anthropic = anthropicServerPerTest();

function workspace(provider: 'openai' | 'anthropic', host: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 2, provider, host }));
  return { cwd, home, env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-cut-Q7vX2mLp9RzT4wKd8NfB', ANTHROPIC_API_KEY: 'sk-ant-cut-Q7vX2mLp9RzT4wKd8NfB' } };
}

const cut = /answer cut at max_tokens/;

/** Runs the chain, its first answer cut; checks the run's lines and what `sessions show` says of both steps. */
async function runWithFirstAnswerCut(ws: ReturnType<typeof workspace>, flags: string[]): Promise<void> {
  const run = await runCli(['run', 'spec.yaml', ...flags], ws);
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stderr.split('\n').filter((line) => line.startsWith('✓ step'));
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(cut);
  expect(lines[1]).not.toMatch(cut);
  const id = /session ([0-9a-f]{16})/.exec(run.stderr)![1]!;
  const show = await runCli(['sessions', 'show', id], ws);
  const stepLines = show.stdout.split('\n').filter((line) => /^\s+✓ [12]\s/.test(line));
  expect(stepLines.filter((line) => cut.test(line)), show.stdout).toHaveLength(1);
  expect((await runCli(['sessions', 'show', id, '--step', '1'], ws)).stdout).toMatch(/^note +answer cut at max_tokens/m);
  expect((await runCli(['sessions', 'show', id, '--step', '2'], ws)).stdout).not.toMatch(cut);
  const json = JSON.parse((await runCli(['sessions', 'show', id, '--json'], ws)).stdout) as { steps: { cut?: boolean }[] };
  expect(json.steps.map((step) => step.cut)).toEqual([true, false]);
}

describe('an answer cut at max_tokens', () => {
  it.each([[[] as string[]], [['--stream']]])('is marked, OpenAI finish_reason length (%j)', async (flags) => {
    const { server, baseUrl } = openai.current();
    server.handler = (request) => ({ kind: 'answer', ...(request.step === 0 ? { finish: 'length' } : {}) });
    await runWithFirstAnswerCut(workspace('openai', baseUrl), flags);
  });

  it.each([[[] as string[]], [['--stream']]])('is marked, Anthropic stop_reason max_tokens (%j)', async (flags) => {
    const { server, baseUrl } = anthropic.current();
    server.handler = (request) => ({ kind: 'answer', ...(request.step === 0 ? { stop: 'max_tokens' } : {}) });
    await runWithFirstAnswerCut(workspace('anthropic', baseUrl), flags);
  });

  // FIXED: source/session/fork.ts: a fork reused the step without its mark (step_reused had no cut).
  it('keeps its mark in a fork that reuses it', async () => {
    const { server, baseUrl } = openai.current();
    server.handler = (request) => ({ kind: 'answer', ...(request.step === 0 ? { finish: 'length' } : {}) });
    const ws = workspace('openai', baseUrl);
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code, run.stderr).toBe(0);
    const id = /session ([0-9a-f]{16})/.exec(run.stderr)![1]!;
    const fork = await runCli(['fork', id, '--from-step', '2', '--name', 'forked'], ws);
    expect(fork.code, fork.stderr).toBe(0);
    const reused = (await runCli(['sessions', 'show', 'forked'], ws)).stdout.split('\n').find((line) => /^\s+✓ 1\s/.test(line));
    expect(reused).toMatch(/reused +answer cut at max_tokens/);
    expect((await runCli(['sessions', 'show', 'forked', '--step', '1'], ws)).stdout).toMatch(/^note +answer cut at max_tokens/m);
    // And a fork of the fork.
    expect((await runCli(['fork', 'forked', '--from-step', '2', '--name', 'again'], ws)).code).toBe(0);
    const json = JSON.parse((await runCli(['sessions', 'show', 'again', '--json'], ws)).stdout) as { steps: { cut?: boolean }[] };
    expect(json.steps.map((step) => step.cut)).toEqual([true, false]);
  });

  // FIXED: source/providers/openai-provider.ts: cut before its first word, a JSON answer (content null) was taken for a broken one and retried five times.
  it('is marked, not retried, when cut before its first word (OpenAI JSON, content null)', async () => {
    let calls = 0;
    const server = createServer((req, res) => {
      // The run's model check (GET /models) finds no list here; only model calls count.
      if (req.method !== 'POST') return void req.resume().on('end', () => res.writeHead(404).end());
      calls++;
      req.resume().on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'length' }], usage: { prompt_tokens: 3, completion_tokens: 256 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const ws = workspace('openai', `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
      const run = await runCli(['run', 'spec.yaml'], ws);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr.split('\n').filter((line) => cut.test(line))).toHaveLength(2);
      expect(calls).toBe(2);
    } finally {
      server.close();
    }
  });
});
