import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli } from '../helpers/cli.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const steps = 5;
const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => ({ server, baseUrl } = fixture.current()));

function workspace() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps, provider: 'openai', host: baseUrl }));
  return { cwd, home, env: { ACODE_HOME: home, OPENAI_API_KEY: 'sk-test-secret-key-123' } };
}

/** The artifact an uninterrupted run produces, for byte comparison. */
async function uninterruptedArtifact(): Promise<Buffer> {
  const ws = workspace();
  const result = await runCli(['run', 'spec.yaml'], ws);
  expect(result.code, result.stderr).toBe(0);
  server.requests.length = 0;
  return readFileSync(join(ws.cwd, 'artifacts/out/report.md'));
}

describe('kill -9 during a step, then resume', () => {
  it.each([0, 2, 4])('skips the steps completed before a kill -9 during step %i and ends byte-identical', async (k) => {
    const expected = await uninterruptedArtifact();
    const ws = workspace();

    // The server never answers step k: the run is killed while waiting for it.
    server.handler = (r) => (r.step === k ? { kind: 'hang' } : { kind: 'answer' });
    const run = startCli(['run', 'spec.yaml'], ws);
    await server.waitFor((r) => r.step === k);
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');

    server.handler = () => ({ kind: 'answer' });
    const resumed = await runCli(['resume', '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ status: 'completed', steps_total: steps, steps_executed: steps - k, steps_skipped: k });

    // Every completed step was requested exactly once; only the interrupted one twice.
    const expectedCounts = Object.fromEntries(Array.from({ length: steps }, (_, i) => [i, i === k ? 2 : 1]));
    expect(server.countByStep()).toEqual(expectedCounts);
    expect(readFileSync(join(ws.cwd, 'artifacts/out/report.md')).equals(expected)).toBe(true);

    const [record] = parseAllSessionFiles(ws.home);
    expect(record!.checkpoint).toMatchObject({ status: 'completed', steps_done: steps });
  });

  it('sums token usage across the crash and the resume', async () => {
    const ws = workspace();
    server.handler = (r) => (r.step === 3 ? { kind: 'hang' } : { kind: 'answer' });
    const run = startCli(['run', 'spec.yaml'], ws);
    await server.waitFor((r) => r.step === 3);
    run.child.kill('SIGKILL');
    await run.done;
    server.handler = () => ({ kind: 'answer' });
    const resumed = JSON.parse((await runCli(['resume', '--json'], ws)).stdout) as { tokens: { input: number; output: number } };

    // The test server reports prompt_tokens = user message length and completion_tokens = answer length.
    const answered = server.requests.filter((r, i, all) => !(r.step === 3 && all.findIndex((x) => x.step === 3) === i));
    const input = answered.reduce((sum, r) => sum + (r.body.messages.at(-1)?.content.length ?? 0), 0);
    expect(resumed.tokens.input).toBe(input);
    expect(resumed.tokens.output).toBeGreaterThan(0);
  });

  it('never writes the API key to session files or output', async () => {
    const ws = workspace();
    const result = await runCli(['run', 'spec.yaml', '--json'], ws);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-secret-key-123');
    const grep = spawnSync('grep', ['-rl', 'sk-test-secret', ws.home], { encoding: 'utf8' });
    expect(grep.stdout).toBe('');
    expect(grep.status).toBe(1); // grep: no file matched
    expect(result.stdout + result.stderr).not.toContain('sk-test-secret');
  });
});

describe('strands-cli specs', () => {
  it('runs the published chain-3-step-resume-demo spec unchanged against an OpenAI-compatible server', async () => {
    const cwd = tempDir();
    const { copyFileSync } = await import('node:fs');
    copyFileSync(new URL('../fixtures/strands-chain-3-step-resume-demo.yaml', import.meta.url), join(cwd, 'spec.yaml'));
    server.handler = (r) => ({ kind: 'answer', text: `answer for: ${r.body.messages.at(-1)!.content.split('\n')[0]}` });
    const result = await runCli(['run', 'spec.yaml', '--var', 'topic=durable agents', '--json'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_BASE_URL: baseUrl } });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests.map((r) => r.body.model)).toEqual(['gpt-5-nano', 'gpt-5-nano', 'gpt-5-nano']);
    expect(server.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'You are a research assistant. Research the topic provided by the user in detail.' },
      { role: 'user', content: 'Research the topic: durable agents' },
    ]);
    expect(readFileSync(join(cwd, 'artifacts/resume-demo-report.md'), 'utf8')).toBe('answer for: Write a summary report based on:');
  });
});
