import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../source/engine/events.js';
import { replayEvents } from '../../source/engine/session-progress.js';
import { readEventLog } from '../../source/store/event-log.js';
import { startCli, type CliRun } from '../helpers/cli.js';
import { pause, random } from '../helpers/lock-race.js';
import { markedChain, markedParallel, markedWorkflow, requestStep } from '../helpers/marked-specs.js';
import { OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Every model answer takes this long: several steps are in flight at once, and kills land in them. */
const latencyMs = 80;

const specs = {
  chain: markedChain(6),
  workflow: markedWorkflow(3),
  // Branch b waits for an approval (no terminal): the run ends awaiting it, a resume --approve answers it.
  parallel: markedParallel([3, 3, 3, 3], { approvals: { b: 1 } }),
};

/** Each round: a fresh session, killed up to 4 times. */
const rounds = 4;

/** Seeded: a failure names the seed; ACODE_TEST_SEED=<seed> picks the same kill points again (the timing of a loaded machine still varies). */
const seed = Number(process.env.ACODE_TEST_SEED ?? Date.now() % 1_000_000);

async function withServer<T>(work: (server: OpenAiTestServer, baseUrl: string) => Promise<T>): Promise<T> {
  const server = new OpenAiTestServer();
  server.latencyMs = latencyMs;
  const baseUrl = await server.start();
  try {
    return await work(server, baseUrl);
  } finally {
    await server.stop();
  }
}

function workspace(spec: string, baseUrl: string) {
  const cwd = tempDir();
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home: join(cwd, 'home'), env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-test-not-used', OPENAI_BASE_URL: baseUrl } };
}

type Workspace = ReturnType<typeof workspace>;

/** Resolves once the process has written its first line (it has opened or created the session). */
function started(run: CliRun): Promise<void> {
  return new Promise((resolve) => {
    run.child.stderr!.once('data', () => resolve());
    run.child.once('close', () => resolve());
  });
}

function sessionLog(ws: Workspace): EngineEvent[] {
  const [id] = existsSync(join(ws.home, 'sessions')) ? readdirSync(join(ws.home, 'sessions')) : [];
  return id ? readEventLog(join(ws.home, 'sessions', id, 'events.jsonl')) : [];
}

function completedSteps(ws: Workspace): Set<string> {
  return new Set(sessionLog(ws).flatMap((e) => (e.type === 'step_completed' ? [e.step] : [])));
}

/** An uninterrupted run: its artifact, and how long a run takes from its first line to its exit. */
async function uninterrupted(spec: string): Promise<{ artifact: Buffer; ms: number }> {
  return withServer(async (_server, baseUrl) => {
    const ws = workspace(spec, baseUrl);
    const run = startCli(['run', 'spec.yaml', '--json'], ws);
    await started(run);
    const from = Date.now();
    let result = await run.done;
    if (result.code === 1 && /awaiting_approval/.test(result.stdout)) result = await startCli(['resume', '--approve', '--json'], ws).done;
    expect(result.code, result.stderr).toBe(0);
    return { artifact: readFileSync(join(ws.cwd, 'artifacts/out/report.md')), ms: Date.now() - from };
  });
}

/**
 * The promises of a durable run, checked on one session's files and the requests its model server
 * received: it completed; every step completed exactly once; no event id appears twice in the log;
 * and no finished step was sent to the model again — every request for a step arrived before that
 * step's `step_completed` was stamped, and a step was requested at most once per `step_started`
 * (the model is called only after its start is durable).
 */
function checkDurable(ws: Workspace, ids: readonly string[], requests: OpenAiTestServer['requests'], where: string): void {
  const log = sessionLog(ws);
  const eventIds = log.map((e) => e.event_id);
  expect(new Set(eventIds).size, `${where}: an event id repeated`).toBe(eventIds.length);
  expect(log.at(-1)?.type, where).toBe('session_completed');
  const completed = new Map<string, EngineEvent>();
  const starts = new Map<string, number>();
  for (const event of log) {
    if (event.type === 'step_started') {
      expect(completed.has(event.step), `${where}: ${event.step} started again after it completed`).toBe(false);
      starts.set(event.step, (starts.get(event.step) ?? 0) + 1);
    }
    if (event.type === 'step_completed') {
      expect(completed.has(event.step), `${where}: ${event.step} completed twice`).toBe(false);
      completed.set(event.step, event);
    }
  }
  expect([...completed.keys()].sort(), where).toEqual([...ids].sort());
  const asked = new Map<string, number>();
  for (const request of requests) {
    const step = requestStep(request.user);
    const done = completed.get(step);
    expect(done, `${where}: a request for ${step}, no such step`).toBeDefined();
    expect(request.at, `${where}: ${step} was sent to the model after it completed`).toBeLessThanOrEqual(Date.parse(done!.ts));
    asked.set(step, (asked.get(step) ?? 0) + 1);
  }
  for (const [step, count] of asked) expect(count, `${where}: ${step} requested more often than started`).toBeLessThanOrEqual(starts.get(step) ?? 0);
}

/**
 * One round: `acode run`, then `acode resume` until the session completes; each process is SIGKILLed
 * at a random instant while model calls are in flight (the first always, later ones with probability
 * 0.7, at most `maxKills` in all).
 */
async function killedAndResumed(spec: string, ids: readonly string[], rand: () => number, firstKillInFlight: number, where: string): Promise<{ artifact: Buffer; inFlight: number[] }> {
  const maxKills = 4;
  return withServer(async (server, baseUrl) => {
    const ws = workspace(spec, baseUrl);
    let run = startCli(['run', 'spec.yaml', '--json'], ws);
    let kills = 0;
    const inFlight: number[] = [];
    let id: string | undefined;
    const transcript: string[] = [];
    for (let processes = 1; ; processes++) {
      expect(processes, `${where}: no end after ${processes} processes\n${transcript.join('\n')}`).toBeLessThan(12);
      await started(run);
      if (kills < maxKills && (kills === 0 || rand() < 0.7)) {
        // At a random point of what is left to run — after the n-th model call this process makes,
        // a random part of an answer's latency later — and only while a call is in flight: a kill
        // between steps would prove less. The first kill of some rounds waits for several at once.
        const alive = () => run.child.exitCode === null && run.child.signalCode === null;
        const want = kills === 0 ? firstKillInFlight : 1;
        const left = ids.length - completedSteps(ws).size;
        const nth = server.requests.length + (want > 1 ? want : 1 + Math.floor(rand() * left));
        while (server.requests.length < nth && alive()) await pause(2);
        // (Waiting for several, a pause could let them finish and leave too few ever in flight again.)
        if (want === 1) await pause(rand() * latencyMs);
        while (server.pending < want && alive()) await pause(2);
        run.child.kill('SIGKILL');
      }
      const result = await run.done;
      transcript.push(`[${processes}] ${result.signal ?? result.code}\n${result.stderr}`);
      id ??= readdirSync(join(ws.home, 'sessions'))[0];
      const status = result.code === null ? undefined : (JSON.parse(result.stdout || '{}') as { status?: string }).status;
      if (result.signal === 'SIGKILL') {
        kills++;
        // The steps the kill cut short: started, not finished (replayed as a resume replays them).
        inFlight.push(Object.keys(replayEvents(sessionLog(ws), ids.length).in_progress).length);
      } else if (result.code === 0 || result.code === 15) {
        // 15: killed just after it had finished; the session is complete, and a resume says so.
        break;
      } else if (!(result.code === 1 && status === 'awaiting_approval')) {
        // An approval left waiting is answered by the next resume (--approve); anything else is a failure.
        expect.fail(`${where}: a process ended ${result.code}\n${transcript.join('\n')}`);
      }
      run = startCli(['resume', id!, '--approve', '--json'], ws);
    }
    checkDurable(ws, ids, server.requests, `${where} (${kills} kills)\n${transcript.join('\n')}`);
    return { artifact: readFileSync(join(ws.cwd, 'artifacts/out/report.md')), inFlight };
  });
}

describe('random SIGKILLs while steps run, then resumes (killed too)', () => {
  it.each(Object.keys(specs) as (keyof typeof specs)[])('%s: always completes, byte-identical to an uninterrupted run, no finished step asked again', async (pattern) => {
    const { spec, ids } = specs[pattern];
    const reference = await uninterrupted(spec);
    const rand = random(seed + pattern.length);
    const inFlight: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const where = `${pattern}, seed ${seed} (ACODE_TEST_SEED=${seed}), round ${round}`;
      const outcome = await killedAndResumed(spec, ids, rand, round === 0 && pattern !== 'chain' ? 3 : 1, where);
      expect(outcome.artifact.equals(reference.artifact), `${where}: artifact differs from the uninterrupted run`).toBe(true);
      inFlight.push(...outcome.inFlight);
    }
    console.log(`${pattern}: ${rounds} rounds, ${inFlight.length} kills, steps in flight at each: ${inFlight.join(' ')}; seed ${seed}; a run takes ${reference.ms} ms`);
    // The kills did land while steps ran (several at once where the pattern runs several).
    expect(Math.max(...inFlight), `seed ${seed}`).toBeGreaterThanOrEqual(pattern === 'chain' ? 1 : 3);
  }, 180_000);
});

/** Polls `done` every few ms; fails after `ms`. */
async function until(done: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) expect.fail(`timed out waiting for ${what}`);
    await pause(5);
  }
}

describe('parallel branches under a crash and an approval', () => {
  it("re-runs only the three in-flight branches' current steps after a crash, nothing completed", async () => {
    // Branches at different depths: a in its step 2, b in its step 3, c in its step 1; d finished.
    const { spec } = markedParallel([3, 3, 2, 2]);
    const inFlight = ['a/1', 'b/2', 'c/0'];
    await withServer(async (server, baseUrl) => {
      const ws = workspace(spec, baseUrl);
      server.handler = (request) => (inFlight.includes(requestStep(request.user)) ? { kind: 'hang' } : { kind: 'answer' });
      const run = startCli(['run', 'spec.yaml', '--json'], ws);
      const asked = () => new Set(server.requests.map((r) => requestStep(r.user)));
      await until(() => inFlight.every((step) => asked().has(step)) && completedSteps(ws).has('d/1'), 'three branches in flight and d finished');
      run.child.kill('SIGKILL');
      expect((await run.done).signal).toBe('SIGKILL');

      const before = completedSteps(ws);
      expect([...before].sort()).toEqual(['a/0', 'b/0', 'b/1', 'd/0', 'd/1']);
      expect(Object.keys(replayEvents(sessionLog(ws), 11).in_progress).sort()).toEqual(inFlight);

      server.handler = () => ({ kind: 'answer' });
      const sent = server.requests.length;
      const id = readdirSync(join(ws.home, 'sessions'))[0]!;
      const resumed = await startCli(['resume', id, '--json'], ws).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_total: 11, steps_skipped: 5, steps_executed: 6 });
      const again = server.requests.slice(sent).map((r) => requestStep(r.user));
      // Asked again: exactly the three cut short (each once); then the steps never started; nothing completed.
      const askedBefore = new Set(server.requests.slice(0, sent).map((r) => requestStep(r.user)));
      expect(again.filter((step) => askedBefore.has(step)).sort()).toEqual(inFlight);
      expect([...again].sort()).toEqual(['a/1', 'a/2', 'b/2', 'c/0', 'c/1', 'reduce']);
      const restarts = sessionLog(ws).filter((e) => e.type === 'step_started' && e.attempt === 2).map((e) => (e.type === 'step_started' ? e.step : ''));
      expect(restarts.sort()).toEqual(inFlight);
    });
  });

  it('lets the other branches finish while an approval in one branch waits; resume --approve finishes it', async () => {
    const { spec } = markedParallel([3, 2, 1], { approvals: { a: 1 } });
    await withServer(async (server, baseUrl) => {
      const ws = workspace(spec, baseUrl);
      const run = await startCli(['run', 'spec.yaml', '--json'], ws).done;
      expect(run.code, run.stderr).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'awaiting_approval', steps_executed: 4 });
      expect(run.stderr).toContain('◆ a step 2 (approval): Approve branch a?');
      expect(server.requests.map((r) => requestStep(r.user)).sort()).toEqual(['a/0', 'b/0', 'b/1', 'c/0']);
      // The other branches went on after the question was asked (they did not merely finish first).
      const log = sessionLog(ws);
      const asked = log.find((e) => e.type === 'approval_requested')!;
      const finishedAfter = log.filter((e) => e.type === 'step_completed' && e.event_id > asked.event_id).map((e) => (e.type === 'step_completed' ? e.step : ''));
      expect(finishedAfter).toContain('b/1');

      const id = readdirSync(join(ws.home, 'sessions'))[0]!;
      const sent = server.requests.length;
      const resumed = await startCli(['resume', id, '--approve', '--json'], ws).done;
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_total: 7, steps_skipped: 4, steps_executed: 3 });
      expect(server.requests.slice(sent).map((r) => requestStep(r.user))).toEqual(['a/2', 'reduce']);
      expect(readFileSync(join(ws.cwd, 'artifacts/out/report.md'), 'utf8')).toMatch(/^a: answer -1: [0-9a-f]{16}\nb: answer -1: [0-9a-f]{16}\nc: answer -1: [0-9a-f]{16}\nfinal: answer -1: [0-9a-f]{16}\n$/);
    });
  });
});
