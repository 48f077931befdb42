import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace(spec = chainSpec({ steps: 1, provider: 'scripted' })) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, env: { ACODE_HOME: join(tempDir(), 'home') } };
}

async function runId(args: string[], ws: { cwd: string; env: Record<string, string> }): Promise<string> {
  const run = await runCli(['run', 'spec.yaml', '--json', ...args], ws);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { session_id: string }).session_id;
}

const openai = openAiServerPerTest();

describe('--json of the commands that change or check things', () => {
  it('validate --json gives every problem as {file, line, column, message, severity}, exit 2 on an error', async () => {
    const ws = workspace();
    const good = await runCli(['validate', 'spec.yaml', '--json'], ws);
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ file: 'spec.yaml', valid: true, pattern: 'chain, 1 step', provider: 'scripted', problems: [] });
    writeFileSync(join(ws.cwd, 'bad.yaml'), readFileSync(join(ws.cwd, 'spec.yaml'), 'utf8').replace('  temperature: 0.2\n', '  temperature: hot\n'));
    const bad = await runCli(['validate', 'bad.yaml', '--json'], ws);
    expect(bad.code).toBe(2);
    const report = JSON.parse(bad.stdout) as { valid: boolean; problems: { file: string; line: number; column: number; message: string; severity: string }[] };
    expect(report.valid).toBe(false);
    expect(report.problems).toContainEqual({ file: 'bad.yaml', line: 6, column: 16, message: expect.any(String), severity: 'error' });
  });

  it('init --json names the file written', async () => {
    const ws = workspace();
    const init = await runCli(['init', 'starter.yaml', '--json'], ws);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toEqual({ file: 'starter.yaml', path: join(ws.cwd, 'starter.yaml'), provider: 'scripted' });
    expect(existsSync(join(ws.cwd, 'starter.yaml'))).toBe(true);
  });

  it('sessions delete --json names the session deleted', async () => {
    const ws = workspace();
    const id = await runId([], ws);
    const deleted = await runCli(['sessions', 'delete', id.slice(0, 6), '--force', '--json'], ws);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ session_id: id, deleted: id });
  });

  it('run --json carries the session name, workflow, tokens and dollars rounded to a millionth', async () => {
    const { server, baseUrl } = openai.current();
    server.handler = () => ({ kind: 'answer', text: 'priced answer '.repeat(7) });
    const ws = workspace(chainSpec({ steps: 2, provider: 'openai', host: baseUrl }).replace('model_id: test-model', 'model_id: gpt-4o-mini'));
    const env = { ...ws.env, OPENAI_API_KEY: 'sk-json-Q7vX2mLp9RzT4wKd8NfB' };
    const run = await runCli(['run', 'spec.yaml', '--json', '--name', 'priced-run'], { cwd: ws.cwd, env });
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { name: string; workflow_name: string; tokens: { input: number; output: number }; dollars: number };
    expect(summary).toMatchObject({ name: 'priced-run', workflow_name: 'e2e-chain', status: 'completed' });
    expect(summary.tokens.input + summary.tokens.output).toBeGreaterThan(0);
    expect(summary.dollars).toBeGreaterThan(0);
    expect(String(summary.dollars)).toMatch(/^0\.\d{1,6}$/);
    // The same dollars sessions show --json gives for the session.
    const shown = JSON.parse((await runCli(['sessions', 'show', 'priced-run', '--json'], { cwd: ws.cwd, env })).stdout) as { dollars: number };
    expect(shown.dollars).toBeCloseTo(summary.dollars, 6);
    // A scripted run has no price: null, not 0.
    const scripted = workspace();
    const unpriced = await runCli(['run', 'spec.yaml', '--json'], scripted);
    expect(JSON.parse(unpriced.stdout)).toMatchObject({ name: null, workflow_name: 'e2e-chain', dollars: null });
  });
});

describe('resume --json', () => {
  it('carries the session name, workflow, the session\'s tokens and its dollars (null without a price)', async () => {
    const ws = workspace(`version: 0
name: gate
runtime:
  provider: scripted
agents:
  researcher: { prompt: "You research." }
pattern:
  type: chain
  config:
    steps:
      - { agent: researcher, input: "Research it" }
      - { type: hitl, prompt: "Approve?", default: approved }
`);
    const run = await runCli(['run', 'spec.yaml', '--json', '--name', 'gated'], ws);
    expect(run.code, run.stderr).toBe(1);
    const paused = JSON.parse(run.stdout) as { tokens: { input: number; output: number } };
    expect(paused).toMatchObject({ status: 'awaiting_approval', name: 'gated', workflow_name: 'gate', dollars: null });
    const resumed = await runCli(['resume', 'gated', '--approve', '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', name: 'gated', workflow_name: 'gate', dollars: null, tokens: paused.tokens, steps_skipped: 1 });
  });
});

describe('sessions list', () => {
  it('shows the folder each session ran in, ~ for the home, and --here keeps those that ran in this one', async () => {
    const home = tempDir();
    const here = join(home, 'src', 'app');
    const elsewhere = join(home, 'other');
    mkdirSync(here, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    const env = { ACODE_HOME: join(tempDir(), 'acode'), HOME: home };
    for (const cwd of [here, elsewhere]) writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'scripted' }));
    const mine = await runId([], { cwd: here, env });
    const theirs = await runId([], { cwd: elsewhere, env });
    const table = await runCli(['sessions', 'list'], { cwd: here, env });
    expect(table.stdout.split('\n')[0]).toMatch(/UPDATED\s+DIRECTORY$/);
    expect(table.stdout).toMatch(new RegExp(`${mine}.*  ~/src/app\\n`));
    expect(table.stdout).toMatch(new RegExp(`${theirs}.*  ~/other\\n`));
    const scoped = await runCli(['sessions', 'list', '--here', '--json'], { cwd: here, env });
    expect(scoped.code, scoped.stderr).toBe(0);
    expect((JSON.parse(scoped.stdout) as { session_id: string }[]).map((row) => row.session_id)).toEqual([mine]);
    const none = await runCli(['sessions', 'list', '--here'], { cwd: home, env });
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no sessions ran in ~');
  });
});
