import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimResume, prepareResume } from '../../source/session/prepare-resume.js';
import { LocalSessionRepository } from '../../source/store/local-repository.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, startCli, type CliRun } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

type Workspace = { cwd: string; home: string; env: Record<string, string> };

function workspace(spec: string, home = join(tempDir(), 'home')): Workspace {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

/** A session killed with SIGKILL by a scripted crash while step `at` ran; the later steps are slow. */
async function crashedSession(options: { steps?: number; at?: number; latencyMs?: number } = {}) {
  const scripted = `  scripted:\n    latency_ms: ${options.latencyMs ?? 0}\n    faults:\n      - { step: ${options.at ?? 1}, kind: crash }`;
  const ws = workspace(chainSpec({ steps: options.steps ?? 3, provider: 'scripted', scripted }));
  const crashed = await runCli(['run', 'spec.yaml'], ws);
  expect(crashed.signal).toBe('SIGKILL');
  const [record] = parseAllSessionFiles(ws.home);
  return { ws, id: record!.session_id, dir: join(ws.home, 'sessions', record!.session_id) };
}

function waitForLine(run: CliRun, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    run.child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
    });
  });
}

describe('the session lock', () => {
  it('lets exactly one of two racing resumes run; the other exits 16 at once, without waiting for it', async () => {
    const { ws, id } = await crashedSession({ latencyMs: 1500 });
    const started = Date.now();
    const timed = (run: CliRun) => run.done.then((result) => ({ ...result, ms: Date.now() - started }));
    const results = await Promise.all([timed(startCli(['resume', id], ws)), timed(startCli(['resume', id], ws))]);
    const loser = results.find((r) => r.code === 16);
    const winner = results.find((r) => r.code === 0);
    expect(winner, results.map((r) => r.stderr).join('\n---\n')).toBeDefined();
    expect(loser).toBeDefined();
    expect(loser!.stderr).toMatch(/ACODE-RESUME-003: session [0-9a-f]+ is in use by pid \d+ .*acode sessions unlock/);
    expect(winner!.ms).toBeGreaterThan(3000); // it ran both remaining 1.5 s steps
    // The loser did not wait for the lock: it was gone before the winner's first step ended.
    expect(loser!.ms).toBeLessThan(winner!.ms - 1500);
    const history = (await runCli(['sessions', 'history', id, '--json'], ws)).stdout;
    const events = JSON.parse(history) as { type: string; step?: number }[];
    expect(events.filter((e) => e.type === 'resume_planned')).toHaveLength(1);
  });

  it('refuses a second resume at once while the first runs', async () => {
    const { ws, id } = await crashedSession({ latencyMs: 3000 });
    const first = startCli(['resume', id], ws);
    await waitForLine(first, '▶ step 2/3');
    const second = await runCli(['resume', id], ws);
    // Refused while the first is still inside its 3 s step: it never waited for the lock.
    expect(first.child.exitCode).toBeNull();
    expect(second.code).toBe(16);
    expect(second.stderr).toContain('ACODE-RESUME-003');
    first.child.kill('SIGKILL');
    await first.done;
  });

  it('takes over the lock of an owner killed with SIGKILL, and logs the takeover', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 60000' }));
    const run = startCli(['run', 'spec.yaml'], ws);
    await waitForLine(run, '▶ step 1/3');
    run.child.kill('SIGKILL');
    await run.done;
    const [record] = parseAllSessionFiles(ws.home);
    const list = await runCli(['sessions', 'list'], ws);
    expect(list.stdout).toContain('running (interrupted)');
    // The snapshot keeps its 60 s latency: check the takeover, then pause the resume.
    const resumed = startCli(['resume', record!.session_id], ws);
    await waitForLine(resumed, '▶ step 1/3 worker (attempt 2)');
    resumed.child.kill('SIGINT');
    const result = await resumed.done;
    expect(result.stderr).toMatch(/took over the session lock: its owner \(pid \d+\) is no longer running/);
    const events = JSON.parse((await runCli(['sessions', 'history', record!.session_id, '--json'], ws)).stdout) as { type: string }[];
    expect(events.map((e) => e.type)).toContain('lock_taken_over');
  });

  it("takes over a lock whose heartbeat went silent, even from another host, but not a fresh one", async () => {
    const { ws, id, dir } = await crashedSession();
    const lock = (heartbeatAgoMs: number) => ({
      pid: 1, host: 'another-host', proc_start: null, started_at: new Date(0).toISOString(),
      heartbeat_at: new Date(Date.now() - heartbeatAgoMs).toISOString(), token: 'theirs',
    });
    writeFileSync(join(dir, 'lock'), JSON.stringify(lock(1000)));
    const refused = await runCli(['resume', id], ws);
    expect(refused.code).toBe(16);
    expect(refused.stderr).toContain('pid 1 on another-host');
    writeFileSync(join(dir, 'lock'), JSON.stringify(lock(61_000)));
    const taken = await runCli(['resume', id], ws);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stderr).toMatch(/took over the session lock: its owner's heartbeat stopped 6\d s ago/);
  });

  it('honours resume.lock_timeout_seconds from the project config', async () => {
    const { ws, id, dir } = await crashedSession();
    writeFileSync(join(dir, 'lock'), JSON.stringify({ pid: 1, host: 'another-host', proc_start: null, started_at: new Date(0).toISOString(), heartbeat_at: new Date(Date.now() - 5000).toISOString(), token: 't' }));
    mkdirSync(join(ws.cwd, '.acode'));
    writeFileSync(join(ws.cwd, '.acode/config.yml'), 'resume:\n  lock_timeout_seconds: 2\n');
    expect((await runCli(['resume', id], ws)).code).toBe(0);
  });

  // FIXED: source/session/execute.ts: it said another process now drove the session, when nobody did.
  it("says its lock was taken and nobody holds it now when 'sessions unlock' took it and nobody resumed", async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 1500' }));
    mkdirSync(join(ws.cwd, '.acode'));
    writeFileSync(join(ws.cwd, '.acode/config.yml'), 'resume:\n  lock_timeout_seconds: 1\n');
    const first = startCli(['run', 'spec.yaml'], ws);
    await waitForLine(first, '▶ step 1/3');
    const [record] = parseAllSessionFiles(ws.home);
    expect((await runCli(['sessions', 'unlock', record!.session_id, '--force'], ws)).code).toBe(0);
    const lost = await first.done;
    expect(lost.code).toBe(16);
    expect(lost.stderr).toContain(`the lock of session ${record!.session_id} was taken from this process while it ran, by another process that has let it go since, or by 'acode sessions unlock'; this process stopped without writing more.`);
  });

  it('stops a process that lost its lock without it writing anything more', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 1500' }));
    mkdirSync(join(ws.cwd, '.acode'));
    writeFileSync(join(ws.cwd, '.acode/config.yml'), 'resume:\n  lock_timeout_seconds: 1\n'); // heartbeat every 250 ms
    const first = startCli(['run', 'spec.yaml'], ws);
    await waitForLine(first, '▶ step 1/3');
    const [record] = parseAllSessionFiles(ws.home);
    expect((await runCli(['sessions', 'unlock', record!.session_id, '--force'], ws)).code).toBe(0);
    const second = startCli(['resume', record!.session_id, '--json'], ws);
    const lost = await first.done;
    expect(lost.code).toBe(16);
    // Seen before the resume took the lock, or after: either is said as it is.
    expect(lost.stderr).toMatch(/ACODE-RESUME-003: (lost the lock of session [0-9a-f]+ to pid \d+ since|the lock of session [0-9a-f]+ was taken from this process while it ran)/);
    const resumed = await second.done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_executed: 3 });
    // The replay check passes: no attempt of the first process was interleaved with the second's.
    expect((await runCli(['resume', record!.session_id, '--dry-run'], ws)).stderr).toContain('ACODE-RESUME-002');
    const events = JSON.parse((await runCli(['sessions', 'history', record!.session_id, '--json'], ws)).stdout) as { type: string; step?: number }[];
    expect(events.filter((e) => e.type === 'step_completed').map((e) => e.step)).toEqual(['1', '2', '3']);
  });

  it('unlocks a held lock only with --force when there is no terminal', async () => {
    const { ws, id, dir } = await crashedSession();
    writeFileSync(join(dir, 'lock'), JSON.stringify({ pid: process.pid, host: hostname(), proc_start: null, started_at: new Date().toISOString(), heartbeat_at: new Date().toISOString(), token: 't' }));
    const refused = await runCli(['sessions', 'unlock', id], ws);
    expect(refused.code).toBe(16);
    const forced = await runCli(['sessions', 'unlock', id, '--force'], ws);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain(`unlocked session ${id}`);
    expect((await runCli(['resume', id], ws)).code).toBe(0);
  });
});

describe('states, fork and the continuation plan', () => {
  it('lists only resumable sessions with --resumable', async () => {
    const { ws, id } = await crashedSession();
    await runCli(['run', 'spec.yaml', '--no-save-session'], ws);
    writeFileSync(join(ws.cwd, 'ok.yaml'), chainSpec({ steps: 1, provider: 'scripted' }));
    await runCli(['run', 'ok.yaml'], ws);
    const rows = JSON.parse((await runCli(['sessions', 'list', '--resumable', '--json'], ws)).stdout) as { session_id: string }[];
    expect(rows.map((r) => r.session_id)).toEqual([id]);
  });

  it('forks a completed session, reusing its steps before --from-step', async () => {
    const ws = workspace(chainSpec({ steps: 4, provider: 'scripted' }));
    const original = JSON.parse((await runCli(['run', 'spec.yaml', '--json'], ws)).stdout) as { session_id: string };
    const report = readFileSync(join(ws.cwd, 'artifacts/out/report.md'));
    rmSync(join(ws.cwd, 'artifacts/out'), { recursive: true });
    const fork = await runCli(['fork', original.session_id, '--from-step', '3', '--json'], ws);
    expect(fork.code, fork.stderr).toBe(0);
    const summary = JSON.parse(fork.stdout) as { session_id: string; steps_executed: number; steps_reused: number; status: string };
    expect(summary).toMatchObject({ status: 'completed', steps_executed: 2, steps_skipped: 0, steps_reused: 2, forked_from: original.session_id });
    expect(summary.session_id).not.toBe(original.session_id);
    expect(readFileSync(join(ws.cwd, 'artifacts/out/report.md')).equals(report)).toBe(true);
    const events = JSON.parse((await runCli(['sessions', 'history', summary.session_id, '--json'], ws)).stdout) as { type: string; from_session?: string }[];
    expect(events.filter((e) => e.type === 'step_reused')).toHaveLength(2);
    expect(events[0]).toMatchObject({ type: 'session_forked', from_session: original.session_id });
  });

  it('refuses a --from-step beyond the completed steps', async () => {
    const { ws, id } = await crashedSession({ at: 1 });
    const result = await runCli(['fork', id, '--from-step', '3'], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--from-step must be between 1 and 2');
  });

  it('prints the plan on --dry-run and leaves the session folder and index byte-identical', async () => {
    const { ws, id } = await crashedSession({ steps: 4, at: 2 });
    const before = hashFolder(ws.home);
    const dry = await runCli(['resume', '--dry-run'], ws);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would resume session ${id}`);
    expect(dry.stdout).toMatch(/skip \(done\): +1 worker, 2 worker/);
    expect(dry.stdout).toMatch(/in progress: +3 worker, attempt 1 → retry as attempt 2/);
    expect(dry.stdout).toMatch(/remaining: +4 worker/);
    const json = JSON.parse((await runCli(['resume', id, '--dry-run', '--json'], ws)).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ session_id: id, status: 'running', skip: [{ step: '1' }, { step: '2' }], in_progress: [{ step: '3', attempt: 1, next_attempt: 2 }], remaining: [{ step: '4' }] });
    expect(hashFolder(ws.home)).toEqual(before);
  });

  it('logs the same plan as an event before a real resume runs', async () => {
    const { ws, id } = await crashedSession({ steps: 4, at: 2 });
    expect((await runCli(['resume', id], ws)).code).toBe(0);
    const events = JSON.parse((await runCli(['sessions', 'history', id, '--json'], ws)).stdout) as { type: string }[];
    const planned = events.find((e) => e.type === 'resume_planned');
    expect(planned).toMatchObject({ steps_skipped: 2, in_progress: [{ step: '2', attempt: 1 }], steps_remaining: 2 });
    expect(events.indexOf(planned!)).toBeLessThan(events.findIndex((e) => e.type === 'session_started' && events.indexOf(e) > events.indexOf(planned!)));
  });
});

describe('replay checks and error codes', () => {
  it('refuses with ACODE-RESUME-006 when the checkpoint disagrees with the event log, changing nothing', async () => {
    const { ws, id, dir } = await crashedSession({ steps: 3, at: 2 });
    const record = JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8')) as { checkpoint: { tokens: { input: number } } };
    record.checkpoint.tokens.input += 1;
    writeFileSync(join(dir, 'session.json'), JSON.stringify(record));
    const before = hashFolder(ws.home);
    const result = await runCli(['resume', id], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ACODE-RESUME-006: session [0-9a-f]+ is non-deterministic .*tokens: replay has/);
    expect(hashFolder(ws.home)).toEqual(before);
  });

  it('refuses with ACODE-RESUME-007 when an idempotency key appears twice', async () => {
    const { ws, id, dir } = await crashedSession({ steps: 3, at: 2 });
    const log = readFileSync(join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const started = log.find((e) => e.type === 'step_started')!;
    appendFileSync(join(dir, 'events.jsonl'), `${JSON.stringify({ ...started, event_id: log.length + 1, ts: new Date().toISOString() })}\n`);
    const result = await runCli(['resume', id], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ACODE-RESUME-007: .*was started twice/);
  });

  it('refuses with ACODE-RESUME-007 when a step completed twice under different attempts, changing nothing', async () => {
    const { ws, id, dir } = await crashedSession({ steps: 3, at: 2 });
    const path = join(dir, 'events.jsonl');
    const log = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // Step 2 (index 1) ran again as attempt 2 and completed again: what a second driver would leave.
    const again = ['step_started', 'step_completed'].map((type, i) => {
      const first = log.find((e) => e.type === type && e.step === '1')!;
      return { ...first, attempt: 2, idempotency_key: `${id}:1:2`, event_id: log.length + 1 + i, ts: new Date().toISOString() };
    });
    appendFileSync(path, again.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const before = hashFolder(ws.home);
    const cwdBefore = hashFolder(ws.cwd);
    const result = await runCli(['resume', id], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ACODE-RESUME-007: .*step 2 completed twice \([0-9a-f]+:1:1, then [0-9a-f]+:1:2 at event \d+\)/);
    expect(hashFolder(ws.home)).toEqual(before);
    expect(hashFolder(ws.cwd)).toEqual(cwdBefore);
  });

  it('reports ACODE-RESUME-005 for a session that does not exist', async () => {
    const ws = workspace('');
    const result = await runCli(['resume', 'deadbeef'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ACODE-RESUME-005: no session matches 'deadbeef'.*acode sessions list/);
  });

  it('exits 17 with ACODE-RESUME-004 when the working directory is gone, changing nothing', async () => {
    const { ws, id } = await crashedSession();
    rmSync(ws.cwd, { recursive: true, force: true }); // the session ran there; its home lives elsewhere
    const before = hashFolder(ws.home);
    const result = await runCli(['resume', id], { ...ws, cwd: tempDir() });
    expect(result.code).toBe(17);
    expect(result.stderr).toMatch(/ACODE-RESUME-004: session [0-9a-f]+ ran in .*, which no longer exists/);
    expect(hashFolder(ws.home)).toEqual(before);
  });

  it('rejects a bad config with file:line and leaves the session as it was', async () => {
    const { ws, id } = await crashedSession();
    mkdirSync(join(ws.cwd, '.acode'));
    writeFileSync(join(ws.cwd, '.acode/config.yml'), 'resume:\n  max_attempts: many\n  colour: blue\n');
    const before = hashFolder(ws.home);
    const result = await runCli(['resume', id], ws);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\.acode\/config\.yml:2:17: error: resume\.max_attempts: /);
    expect(result.stderr).toMatch(/\.acode\/config\.yml:3:3: error: resume\.colour: unknown setting/);
    expect(hashFolder(ws.home)).toEqual(before);
  });
});

/** A session of `spec` killed by its scripted crash, and its log. */
async function crashed(spec: string) {
  const ws = workspace(spec);
  expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
  const [record] = parseAllSessionFiles(ws.home);
  return { ws, id: record!.session_id, log: join(ws.home, 'sessions', record!.session_id, 'events.jsonl') };
}

const crashAt1 = chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: crash }' });

function lastEvent(log: string): { event_id: number; ts: string; epoch?: number } {
  return JSON.parse(readFileSync(log, 'utf8').trim().split('\n').at(-1)!) as { event_id: number; ts: string; epoch?: number };
}

describe('resume safety: what changed since the kill', () => {
  it('refuses a session whose log says it completed even if its checkpoint still says running', async () => {
    const { ws, id, log } = await crashed(crashAt1);
    const last = lastEvent(log);
    // Written by the session's own (lock epoch's) process, just before it was killed.
    appendFileSync(log, `${JSON.stringify({ type: 'session_completed', tokens: { input: 0, output: 0 }, event_id: last.event_id + 1, ts: last.ts, epoch: last.epoch })}\n`);
    const result = await runCli(['resume', id], ws);
    expect(result.code).toBe(15);
    expect(result.stderr).toContain('ACODE-RESUME-002');
  });

  it('refuses to go on when another process ran the session while the resume was being prepared, and lets its lock go', async () => {
    const { ws, id, log } = await crashed(crashAt1);
    const repository = new LocalSessionRepository(ws.home);
    const candidate = await prepareResume(repository, { id, cwd: ws.cwd, env: ws.env });
    const last = lastEvent(log);
    appendFileSync(log, `${JSON.stringify({ type: 'step_skipped', step: 0, agent: 'worker', event_id: last.event_id + 1, ts: last.ts })}\n`);
    await expect(claimResume(repository, candidate, { strategy: 'rollback', env: ws.env })).rejects.toThrowError(expect.objectContaining({ code: 'ACODE-RESUME-003', exitCode: 16 }));
    expect(existsSync(join(ws.home, 'sessions', id, 'lock'))).toBe(false);
  });

  it('never rolls back a pending write that someone edited: it is a changed file', async () => {
    const content = 'line one\nline two\n';
    const spec = `version: 0
name: edited
runtime:
  provider: scripted
  scripted:
    responses:
      writer: { tool_calls: [ { name: file_write, args: { path: notes.md, content: ${JSON.stringify(content)} } } ], then: "ok" }
    faults:
      - { step: 0, kind: crash, during: file_write, after_bytes: 4 }
tools: { python: [file_write] }
agents:
  writer: { prompt: "You write." }
pattern: { type: chain, config: { steps: [ { agent: writer, input: "write" } ] } }
`;
    const { ws } = await crashed(spec);
    writeFileSync(join(ws.cwd, 'notes.md'), 'a person rewrote this\n');
    const refused = await runCli(['resume'], ws);
    expect(refused.code).toBe(17);
    expect(refused.stderr).toMatch(/created +notes\.md/); // it did not exist before the session's write
    expect(readFileSync(join(ws.cwd, 'notes.md'), 'utf8')).toBe('a person rewrote this\n');
    const dry = await runCli(['resume', '--dry-run'], ws);
    expect(dry.stdout).toContain('changed by someone else since: kept as it is');
  });
});

describe('deleting a session', () => {
  it('refuses to delete a session a live process is running', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted', scripted: '  scripted:\n    latency_ms: 60000' }));
    const run = startCli(['run', 'spec.yaml'], ws);
    await new Promise<void>((resolve) => run.child.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('▶ step 1/2') && resolve()));
    const [record] = parseAllSessionFiles(ws.home);
    const refused = await runCli(['sessions', 'delete', record!.session_id], ws);
    expect(refused.code).toBe(16);
    expect(refused.stderr).toMatch(/is running in pid \d+/);
    run.child.kill('SIGKILL');
    await run.done;
  });
});
