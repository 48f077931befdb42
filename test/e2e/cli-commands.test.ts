import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recoverProgress } from '../../source/engine/replay-check.js';
import { readEventLog } from '../../source/store/event-log.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

const scripted = (extra: string) => `  scripted:\n    response_bytes: 2048\n${extra}`;

describe('acode run and resume with the scripted provider', () => {
  it('dies at a scripted crash and resumes after it, skipping the completed steps', async () => {
    const ws = workspace(chainSpec({ steps: 4, provider: 'scripted', scripted: scripted('    faults:\n      - { step: 2, kind: crash }') }));
    const crashed = await runCli(['run', 'spec.yaml'], ws);
    expect(crashed.signal).toBe('SIGKILL');
    const [before] = parseAllSessionFiles(ws.home);
    // The checkpoint is a lazy snapshot (it may lag); the log, replayed past it, holds both completed steps.
    expect(before!.checkpoint.status).toBe('running');
    const events = readEventLog(join(ws.home, 'sessions', before!.session_id, 'events.jsonl'));
    expect(recoverProgress(events, before!.checkpoint)).toMatchObject({ status: 'running', steps_done: 2 });
    // The attempt was journaled (write-ahead) before the provider was called.
    const log = readFileSync(join(ws.home, 'sessions', before!.session_id, 'events.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(log.at(-1)!)).toMatchObject({ type: 'step_started', step: '2', attempt: 1, idempotency_key: `${before!.session_id}:2:1` });

    const resumed = await runCli(['resume', before!.session_id.slice(0, 6), '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: before!.session_id, status: 'completed', steps_executed: 2, steps_skipped: 2 });
    expect(resumed.stderr).toContain('resuming: 2 skipped (completed earlier), 2 remaining');
    expect(readFileSync(join(ws.cwd, 'artifacts/out/report.md'), 'utf8')).toContain('3: worker answered step 4');
  });

  it('prints the session id first and one plain line per event without a TTY', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted' }));
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^acode: session [0-9a-f]{16} · e2e-chain · pid \d+$/);
    expect(lines.slice(1)).toEqual([
      'started: 2 steps',
      '▶ step 1/2 worker',
      expect.stringMatching(/^✓ step 1\/2 worker \d+\.\ds · \d+ in \/ \d+ out$/),
      '▶ step 2/2 worker',
      expect.stringMatching(/^✓ step 2\/2 worker /),
      expect.stringMatching(/^wrote .*out\/report\.md \(\d+ bytes\)$/),
      expect.stringMatching(/^✓ completed: 2 steps \(2 executed, 0 skipped\)/),
    ]);
    expect(result.stdout).toBe('');
  });

  it('counts one step as one step, not "1 steps"', async () => {
    const ws = workspace(chainSpec({ steps: 1, provider: 'scripted' }));
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('started: 1 step\n');
    expect(result.stderr).toMatch(/✓ completed: 1 step \(1 executed, 0 skipped\)/);
  });

  it('prints the --json summary object on stdout', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted' }));
    const result = await runCli(['run', 'spec.yaml', '--json'], ws);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(summary).sort()).toEqual(['artifacts', 'dollars', 'forked_from', 'name', 'session_id', 'status', 'steps_executed', 'steps_reused', 'steps_skipped', 'steps_total', 'tokens', 'workflow_name']);
    expect(summary).toMatchObject({ status: 'completed', steps_total: 3, steps_executed: 3, steps_skipped: 0, steps_reused: 0, forked_from: null, artifacts: [join(ws.cwd, 'artifacts/out/report.md')] });
  });

  it('pauses on SIGINT, flushes the checkpoint and prints the resume command', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 60000' }));
    const run = startCli(['run', 'spec.yaml'], ws);
    await new Promise<void>((resolve) => run.child.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('▶ step 1/3') && resolve()));
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    const [record] = parseAllSessionFiles(ws.home);
    expect(record!.checkpoint).toMatchObject({ status: 'paused', stop_reason: 'user_exit' });
    expect(result.stderr).toContain(`Resume with: acode resume ${record!.session_id}`);
  });

  it('resumes a session paused by a real SIGINT mid-step, retrying only that step', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 300' }));
    const run = startCli(['run', 'spec.yaml'], ws);
    await new Promise<void>((resolve) => run.child.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('▶ step 2/3') && resolve()));
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);
    const resumed = await runCli(['resume'], ws);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('resuming: 1 skipped (completed earlier), 2 remaining');
    expect(resumed.stderr).toMatch(/▶ step 2\/3 \w+ \(attempt 2\)/);
    expect(resumed.stderr).not.toContain('▶ step 1/3');
  });

  it('says a fork is a fork: its first line names the source, the steps reused and those to run, never "resuming"', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted' }));
    const run = await runCli(['run', 'spec.yaml', '--json'], ws);
    const id = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    const fork = await runCli(['fork', id, '--from-step', '3'], ws);
    expect(fork.code, fork.stderr).toBe(0);
    expect(fork.stderr).toContain(`fork of ${id}: 2 steps reused, 1 to run`);
    expect(fork.stderr).not.toContain('resuming');
  });

  it('waits out rate limits without a TTY, one line per attempt, and recovers', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 0, kind: rate_limit, retry_after_s: 0.2, times: 2 }' }));
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(0);
    const waits = result.stderr.split('\n').filter((line) => line.startsWith('◷'));
    expect(waits).toHaveLength(2);
    expect(waits[0]).toMatch(/^◷ step 1\/2 \w+: rate limited \(scripted rate limit \(429\)\); retry 1\/5 in 1 s$/);
    expect(waits[1]).toMatch(/retry 2\/5 in \d+ s$/);
    expect(result.stderr).toContain('recovered after 2 automatic retries');
  });

  it('pauses at the first rate limit with --no-auto-resume, and resumes by hand', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: rate_limit, retry_after_s: 30, times: 1 }' }));
    const result = await runCli(['run', 'spec.yaml', '--no-auto-resume'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('automatic resume is off');
    expect(result.stderr).not.toContain('◷');
    const [record] = parseAllSessionFiles(ws.home);
    expect(record!.checkpoint).toMatchObject({ status: 'paused', stop_reason: 'rate_limit', steps_done: 1 });
    const resumed = await runCli(['resume', record!.session_id], ws);
    expect(resumed.code).toBe(0);
  });

  it('runs with --no-save-session without writing a session', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted' }));
    const result = await runCli(['run', 'spec.yaml', '--no-save-session', '--json'], ws);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', steps_executed: 2 });
    const list = await runCli(['sessions', 'list', '--json'], ws);
    expect(JSON.parse(list.stdout)).toEqual([]);
  });

  it('applies --var over inputs.values', async () => {
    const ws = workspace(chainSpec({ steps: 1, provider: 'scripted', scripted: '  scripted:\n    responses:\n      worker: "about {{ topic }}"' }));
    await runCli(['run', 'spec.yaml', '--var', 'topic=AI agents'], ws);
    expect(readFileSync(join(ws.cwd, 'artifacts/out/report.md'), 'utf8')).toContain('0: about AI agents');
  });

  it('pauses a session that reaches its token budget; a resume pauses again until the budget is raised', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted', budget: 100, scripted: scripted('') }));
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    expect(result.stderr).toContain(`runtime.budgets.max_tokens 100; to go on, raise it: acode resume ${record!.session_id} --set runtime.budgets.max_tokens=200`);
    const again = await runCli(['resume'], ws);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('budget reached');
    const raised = await runCli(['resume', record!.session_id, '--set', 'runtime.budgets.max_tokens=100000'], ws);
    expect(raised.code, raised.stderr).toBe(0);
  });
});

describe('acode exit codes and errors', () => {
  it('exits 14 with ACODE-RESUME-001 when there is no resumable session', async () => {
    const ws = workspace(chainSpec({ steps: 1, provider: 'scripted' }));
    const result = await runCli(['resume'], ws);
    expect(result.code).toBe(14);
    expect(result.stderr).toMatch(/ACODE-RESUME-001: no resumable session .*acode run/);
  });

  it('exits 15 with ACODE-RESUME-002 for a completed session', async () => {
    const ws = workspace(chainSpec({ steps: 1, provider: 'scripted' }));
    const run = JSON.parse((await runCli(['run', 'spec.yaml', '--json'], ws)).stdout) as { session_id: string };
    const result = await runCli(['resume', run.session_id], ws);
    expect(result.code).toBe(15);
    expect(result.stderr).toContain(`ACODE-RESUME-002: session ${run.session_id} is completed`);
  });

  it('exits 2 on a bad spec, naming file:line:column, and writes nothing', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted' }).replace('agent: worker', 'agent: nobody'));
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/spec\.yaml:\d+:\d+: error: step 1 uses agent 'nobody'/);
    const { existsSync } = await import('node:fs');
    expect(existsSync(ws.home)).toBe(false);
  });

  it('exits 2 when a required input is not set, naming the --var to pass', async () => {
    const ws = workspace(chainSpec({ steps: 1, provider: 'scripted' }).replace('inputs:\n  values:\n    topic: durability', 'inputs:\n  required:\n    topic: string'));
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required input 'topic' not set; pass --var topic=");
    expect((await runCli(['run', 'spec.yaml', '--var', 'topic=x'], ws)).code).toBe(0);
  });

  it('exits 2 on an unknown command or flag', async () => {
    const ws = workspace('');
    expect((await runCli(['frobnicate'], ws)).code).toBe(2);
    expect((await runCli(['run', '--bogus'], ws)).code).toBe(2);
  });

  it('refuses to delete without --force when there is no terminal, and deletes with it', async () => {
    const ws = workspace(chainSpec({ steps: 1, provider: 'scripted' }));
    const run = JSON.parse((await runCli(['run', 'spec.yaml', '--json'], ws)).stdout) as { session_id: string };
    const refused = await runCli(['sessions', 'delete', run.session_id], ws);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--force');
    expect(JSON.parse((await runCli(['sessions', 'list', '--json'], ws)).stdout)).toHaveLength(1);
    const deleted = await runCli(['sessions', 'delete', run.session_id.slice(0, 5), '--force'], ws);
    expect(deleted.code).toBe(0);
    expect(JSON.parse((await runCli(['sessions', 'list', '--json'], ws)).stdout)).toEqual([]);
  });

  it('lists sessions newest first and filters by --status', async () => {
    const ws = workspace(chainSpec({ steps: 1, provider: 'scripted' }));
    const first = JSON.parse((await runCli(['run', 'spec.yaml', '--json'], ws)).stdout) as { session_id: string };
    writeFileSync(join(ws.cwd, 'bad.yaml'), chainSpec({ steps: 2, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: error }' }));
    // An unknown provider failure pauses by default; this project asks for failing instead.
    mkdirSync(join(ws.cwd, '.acode'));
    writeFileSync(join(ws.cwd, '.acode', 'config.yml'), 'resume:\n  on_unknown: fail\n');
    const second = JSON.parse((await runCli(['run', 'bad.yaml', '--json', '--force'], ws)).stdout) as { session_id: string; status: string };
    expect(second.status).toBe('failed');
    const all = JSON.parse((await runCli(['sessions', 'list', '--json'], ws)).stdout) as { session_id: string }[];
    expect(all.map((s) => s.session_id)).toEqual([second.session_id, first.session_id]);
    const failed = JSON.parse((await runCli(['sessions', 'list', '--status', 'failed', '--json'], ws)).stdout) as { session_id: string; steps_done: number }[];
    expect(failed).toEqual([expect.objectContaining({ session_id: second.session_id, steps_done: 1, steps_total: 2, status: 'failed' })]);
    const show = await runCli(['sessions', 'show', first.session_id], ws);
    expect(show.stdout).toContain('status    completed');
  });
});
