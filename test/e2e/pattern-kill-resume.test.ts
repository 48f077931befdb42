import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayEvents } from '../../source/engine/session-progress.js';
import { startCli } from '../helpers/cli.js';
import { completedSteps, killedAndResumed, sessionLog, uninterrupted, withServer, workspace } from '../helpers/kill-harness.js';
import { pause, random } from '../helpers/lock-race.js';
import { markedChain, markedParallel, markedWorkflow, requestStep } from '../helpers/marked-specs.js';

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
      expect(run.stderr).toContain('◆ a/2 (approval): Approve branch a?');
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
