import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The step-graph scheduler (workflow and parallel sessions) under failures, rate limits, approvals
 * and stops, and how its sessions are listed and named: driven through the built CLI with the
 * scripted provider, killed with real signals.
 */

interface LoggedEvent {
  event_id: number;
  type: string;
  step?: string;
  attempt?: number;
  usage?: { input: number; output: number };
}

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

type Workspace = ReturnType<typeof workspace>;

function onlySession(ws: Workspace): string {
  const ids = readdirSync(join(ws.home, 'sessions'));
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

async function history(ws: Workspace, id: string): Promise<LoggedEvent[]> {
  const result = await runCli(['sessions', 'history', id, '--json'], ws);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as LoggedEvent[];
}

async function listed(ws: Workspace): Promise<{ session_id: string; status: string; steps_done: number; tokens: { input: number; output: number } }[]> {
  const result = await runCli(['sessions', 'list', '--json'], ws);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('the step-graph scheduler under stops', () => {
  it('a branch failing while another waits out a rate limit fails the session at once, without calling the model again', async () => {
    const ws = workspace(`version: 0
name: rate-limit-then-fail
runtime:
  provider: scripted
  model_id: m
  scripted:
    latency_ms: 50
    faults:
      - { step: "a/0", kind: rate_limit, retry_after_s: 20, times: 1 }
agents:
  w: { prompt: "worker" }
inputs:
  values:
    topic: x
pattern:
  type: parallel
  config:
    branches:
      - { id: a, steps: [ { agent: w, input: "a0" } ] }
      - { id: b, steps: [ { agent: w, input: "b0" }, { agent: w, input: "{{ topic.missing }}" } ] }
`);
    const started = Date.now();
    const result = await runCli(['run', 'spec.yaml'], ws);
    const elapsed = Date.now() - started;
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('failed: step b/2 (w)');
    // The session has failed: nothing is left that a 20 s wait could be for.
    expect(elapsed).toBeLessThan(15_000);
    const events = await history(ws, onlySession(ws));
    const failedAt = events.findIndex((e) => e.type === 'session_failed');
    expect(failedAt).toBeGreaterThan(0);
    // No attempt starts once the run knows it has failed (the failure is the template error of b/1).
    const a0Attempts = events.filter((e) => e.type === 'step_started' && e.step === 'a/1').map((e) => e.attempt);
    expect(a0Attempts).toEqual([1]);
  }, 45_000);

  // A failed step ends the session promptly (the design chosen): nothing new starts — its dependants
  // never, the independent ones neither, as they would spend on a session that has already failed —
  // and the steps already running finish and are kept (a fork reuses them).
  it('a workflow task that fails stops its dependants and starts nothing new; the task already running finishes and is kept', async () => {
    const ws = workspace(`version: 0
name: wf-fail
runtime:
  provider: scripted
  model_id: m
  scripted:
    latency_ms: 400
agents:
  w: { prompt: "worker" }
inputs:
  values:
    topic: x
pattern:
  type: workflow
  config:
    tasks:
      - { id: slow, agent: w, input: "slow" }
      - { id: bad, agent: w, input: "{{ topic.missing }}" }
      - { id: after_bad, agent: w, input: "after {{ tasks.bad.response }}", deps: [bad] }
      - { id: after_slow, agent: w, input: "after {{ tasks.slow.response }}", deps: [slow] }
`);
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(1);
    const events = await history(ws, onlySession(ws));
    const completed = events.filter((e) => e.type === 'step_completed').map((e) => e.step);
    // The dependant of the failed task never starts …
    expect(events.some((e) => e.type === 'step_started' && e.step === 'after_bad')).toBe(false);
    // … the task in flight when it failed finishes and is kept; nothing new starts after the failure.
    expect(completed).toEqual(['slow']);
    expect(events.some((e) => e.type === 'step_started' && e.step === 'after_slow')).toBe(false);
    expect(events.at(-1)!.type).toBe('session_failed');
  });
});

describe('listings of workflow and parallel sessions', () => {
  const approvalInOneBranch = `version: 0
name: one-branch-asks
runtime:
  provider: scripted
  model_id: m
  scripted:
    latency_ms: 50
agents:
  w: { prompt: "worker" }
pattern:
  type: parallel
  config:
    branches:
      - id: ask
        steps:
          - { type: hitl, prompt: "go on?" }
          - { agent: w, input: "after the answer" }
      - id: work
        steps:
          - { agent: w, input: "w0" }
          - { agent: w, input: "w1 {{ steps[0].response }}" }
          - { agent: w, input: "w2 {{ steps[1].response }}" }
`;

  it('a session that stops awaiting approval in one branch is listed with the steps the other branches finished', async () => {
    const ws = workspace(approvalInOneBranch);
    const result = await runCli(['run', 'spec.yaml'], ws);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('awaiting approval');
    const id = onlySession(ws);
    const events = await history(ws, id);
    const done = events.filter((e) => e.type === 'step_completed');
    expect(done.map((e) => e.step)).toEqual(['work/1', 'work/2', 'work/3']);
    const tokens = done.reduce((sum, e) => sum + e.usage!.input + e.usage!.output, 0);

    const [row] = await listed(ws);
    expect(row).toMatchObject({ session_id: id, status: 'awaiting_approval', steps_done: 3 });
    expect(row!.tokens.input + row!.tokens.output).toBe(tokens);
    const shown = await runCli(['sessions', 'show', id], ws);
    expect(shown.stdout).toMatch(/^progress {2}3\/5 steps done/m);
  });

  // Was: commands/sessions.ts showSession prints record.checkpoint, the lazy snapshot, not rolled forward.
  it('sessions show of a killed workflow session counts the steps its log holds, as sessions list does', async () => {
    const tasks = Array.from({ length: 6 }, (_, i) => `      - { id: t${i}, agent: w, input: "t${i}"${i ? `, deps: [t${i - 1}]` : ''} }`).join('\n');
    const ws = workspace(`version: 0
name: wf-killed
runtime:
  provider: scripted
  model_id: m
  scripted:
    faults:
      - { step: "t4", kind: crash }
agents:
  w: { prompt: "worker" }
pattern:
  type: workflow
  config:
    tasks:
${tasks}
`);
    const killed = await runCli(['run', 'spec.yaml'], ws);
    expect(killed.signal).toBe('SIGKILL');
    const id = onlySession(ws);
    const [row] = await listed(ws);
    expect(row!.steps_done).toBe(4);
    const shown = await runCli(['sessions', 'show', id], ws);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^progress {2}4\/6 steps done/m);
  });
});

describe('listings of a parallel session killed while one branch awaits approval', () => {
  // Was stale: the index row of a session awaiting approval was never re-read (only created/running
  // rows were), and a row was re-read only when session.json changed — which the lazy snapshot may
  // not do before a kill. Now awaiting rows are re-read too, when session.json or the log changed.
  it('lists the steps its log holds', async () => {
    const ws = workspace(`version: 0
name: one-branch-asks-killed
runtime:
  provider: scripted
  model_id: m
  scripted:
    latency_ms: 50
    faults:
      - { step: "work/2", kind: crash }
agents:
  w: { prompt: "worker" }
pattern:
  type: parallel
  config:
    branches:
      - id: ask
        steps:
          - { type: hitl, prompt: "go on?" }
          - { agent: w, input: "after the answer" }
      - id: work
        steps:
          - { agent: w, input: "w0" }
          - { agent: w, input: "w1 {{ steps[0].response }}" }
          - { agent: w, input: "w2 {{ steps[1].response }}" }
`);
    const killed = await runCli(['run', 'spec.yaml'], ws);
    expect(killed.signal).toBe('SIGKILL');
    const id = onlySession(ws);
    const done = (await history(ws, id)).filter((e) => e.type === 'step_completed').map((e) => e.step);
    expect(done).toEqual(['work/1', 'work/2']);
    const [row] = await listed(ws);
    expect(row).toMatchObject({ session_id: id, steps_done: 2 });
  });
});

describe('how steps are named', () => {
  // Was: continuation-plan.ts plannedName (and step-id.ts stepTitle) read any id that looks like a
  // number as a chain index, whatever the pattern.
  it('the resume plan of a workflow whose task ids look like numbers names those tasks, not chain steps', async () => {
    const ws = workspace(`version: 0
name: numeric-ids
runtime:
  provider: scripted
  model_id: m
  scripted:
    faults:
      - { step: "2", kind: crash }
agents:
  w: { prompt: "worker" }
pattern:
  type: workflow
  config:
    tasks:
      - { id: "1", agent: w, input: "one" }
      - { id: "2", agent: w, input: "two {{ tasks['1'].response }}", deps: ["1"] }
`);
    const killed = await runCli(['run', 'spec.yaml'], ws);
    expect(killed.signal).toBe('SIGKILL');
    const plan = await runCli(['resume', '--dry-run'], ws);
    expect(plan.code, plan.stderr).toBe(0);
    const lines = plan.stdout.split('\n');
    // Task "1" completed and task "2" was under way: neither is chain step 2 or 3.
    const skip = lines.find((l) => l.startsWith('  skip (done):'))!;
    const running = lines.find((l) => l.startsWith('  in progress:'))!;
    expect(skip).not.toMatch(/\b2\b/);
    expect(skip).toMatch(/\b1\b/);
    expect(running).not.toMatch(/\b3\b/);
    expect(running).toMatch(/\b2\b/);
    const shown = await runCli(['sessions', 'show', onlySession(ws)], ws);
    expect(shown.stdout).not.toContain('step 3 in progress');
  });

  it('plain lines say which branch an approval answer and a tool call belong to', async () => {
    const ws = workspace(`version: 0
name: two-asks
runtime:
  provider: scripted
  model_id: m
  scripted:
    latency_ms: 50
    responses:
      writer: { tool_calls: [ { name: file_write, args: { path: notes.md, content: "draft" } } ], then: "Wrote notes." }
agents:
  w: { prompt: "worker" }
  writer: { prompt: "writer" }
pattern:
  type: parallel
  config:
    branches:
      - id: first
        steps:
          - { agent: w, input: "f0" }
          - { type: hitl, prompt: "approve first?" }
      - id: second
        steps:
          - { type: hitl, prompt: "approve second?" }
      - id: third
        steps:
          - { agent: writer, input: "write" }
`);
    const run = await runCli(['run', 'spec.yaml'], ws);
    expect(run.code).toBe(1);
    // Two questions are open; the resume answers one of them, and its lines must say which.
    const resumed = await runCli(['resume', '--approve'], ws);
    const events = await history(ws, onlySession(ws));
    const answered = events.filter((e) => e.type === 'approval_answered').map((e) => e.step);
    expect(answered).toHaveLength(1);
    const title = answered[0] === 'first/2' ? 'first/2' : 'second/1';
    const answerLine = resumed.stderr.split('\n').find((l) => /^ {2}✓ .*approved$/.test(l));
    expect(answerLine).toContain(title);
    const toolLine = run.stderr.split('\n').find((l) => l.startsWith('  → ') && l.includes('file_write'));
    expect(toolLine).toContain('third/1 (writer)');
  });
});

describe('two questions open at once', () => {
  // The plan lists open questions in the order they were asked (b's first here); a preset answer
  // (--approve) goes to that one, not to whichever approval the scheduler reaches first on resume.
  it('resume --approve answers the question the plan lists first', async () => {
    const ws = workspace(`version: 0
name: two-questions
runtime:
  provider: scripted
  model_id: m
  scripted:
    latency_ms: 100
agents:
  w: { prompt: "worker" }
pattern:
  type: parallel
  config:
    branches:
      - id: a
        steps:
          - { agent: w, input: "a0" }
          - { type: hitl, prompt: "approve a?" }
      - id: b
        steps:
          - { type: hitl, prompt: "approve b?" }
`);
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const plan = JSON.parse((await runCli(['resume', '--dry-run', '--json'], ws)).stdout) as { in_progress: { step: string }[] };
    const listed = plan.in_progress[0]!.step;
    expect(listed).toBe('b/1');
    expect((await runCli(['resume', '--approve'], ws)).code).toBe(1);
    const answered = (await history(ws, onlySession(ws))).filter((e) => e.type === 'approval_answered').map((e) => e.step);
    expect(answered).toEqual([listed]);
  });
});

describe('cancel with steps in flight', () => {
  it('SIGINT with five branches in flight pauses; the resume runs exactly those five again, and nothing finished', async () => {
    const branches = 'abcdef'.split('').map((b) => `      - { id: ${b}, steps: [ { agent: w, input: "${b}0" } ] }`).join('\n');
    const ws = workspace(`version: 0
name: sigint-five
runtime:
  provider: scripted
  model_id: m
  scripted:
    latency_ms: 2000
agents:
  w: { prompt: "worker" }
pattern:
  type: parallel
  config:
    branches:
${branches}
`);
    const run = startCli(['run', 'spec.yaml'], ws);
    let err = '';
    run.child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    for (let i = 0; i < 200 && (err.match(/▶/g) ?? []).length < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(130);
    const id = onlySession(ws);
    const before = await history(ws, id);
    expect(before.at(-1)!.type).toBe('session_paused');
    const inFlight = before.filter((e) => e.type === 'step_started').map((e) => e.step).sort();
    expect(inFlight).toEqual(['a/1', 'b/1', 'c/1', 'd/1', 'e/1']);

    const resumed = await runCli(['resume', id, '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = (await history(ws, id)).slice(before.length);
    const again = after.filter((e) => e.type === 'step_started');
    expect(again.filter((e) => e.attempt === 2).map((e) => e.step).sort()).toEqual(inFlight);
    expect(again.filter((e) => e.attempt === 1).map((e) => e.step)).toEqual(['f/1']);
    const ids = [...before, ...after].map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
