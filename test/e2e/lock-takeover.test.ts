import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fenceEvents } from '../../source/engine/epoch-fence.js';
import { readEventLog } from '../../source/store/event-log.js';
import { sessionRecordSchema } from '../../source/store/session-record.js';
import { runCli } from '../helpers/cli.js';
import { checkReplayable, lockGoesStale, pause, Proc, random, steps, workspace } from '../helpers/lock-race.js';

const frozenTimeoutMs = 500;

/** A run frozen (SIGSTOP) mid-step until its lock went stale: the lock timeout is frozenTimeoutMs. */
async function frozenPastTimeout() {
  const ws = workspace(120, frozenTimeoutMs / 1000);
  const owner = new Proc(['run', 'spec.yaml'], ws);
  expect(await owner.until(/▶ step/), owner.stderr).toBe(true);
  const sessionId = /session ([0-9a-f]{16})/.exec(owner.stderr)![1]!;
  owner.signal('SIGSTOP');
  await lockGoesStale(join(ws.home, 'sessions', sessionId), frozenTimeoutMs);
  return { ws, owner, sessionId };
}

describe('a lock holder that was frozen past the lock timeout and woke up', () => {
  it('changes nothing once another process has taken over: 20 rounds of freeze, takeover, wake and kill -9', async () => {
    const timeoutMs = 500;
    const ws = workspace(120, timeoutMs / 1000);
    const seed = Date.now() % 100_000;
    const rand = random(seed);
    const where = `seed ${seed}`;
    const sessions = new Set<string>();
    let sessionId: string | undefined;
    let owner: Proc | undefined;
    let rounds = 0;
    let takeovers = 0;
    for (let starts = 0; rounds < 20; starts++) {
      expect(starts, `${where}: processes keep ending before a step starts`).toBeLessThan(100);
      if (!owner || owner.result) owner = new Proc(sessionId ? ['resume', sessionId] : ['run', 'spec.yaml'], ws);
      const running = (await owner.until(/▶ step/)) && !owner.result;
      sessionId ??= /session ([0-9a-f]{16})/.exec(owner.stderr)?.[1];
      if (sessionId) sessions.add(sessionId);
      if (!running) {
        if (!owner.result) await owner.run.done;
        // Finished (0, or 15 for a resume of a finished session): a new session takes its place.
        // Anything else (it gave its lock up on its own, 16) is resumed.
        if (owner.result?.code === 0 || owner.result?.code === 15) sessionId = undefined;
        continue;
      }
      const dir = join(ws.home, 'sessions', sessionId!);
      rounds++;
      // Freeze the owner at a random point of its step: in a model call, between tool events…
      await pause(rand() * 250);
      owner.signal('SIGSTOP');
      await lockGoesStale(dir, timeoutMs);
      const taker = new Proc(['resume', sessionId!], ws);
      const took = await taker.until(/resuming session/);
      owner.signal('SIGCONT');
      if (rand() < 0.3) {
        await pause(rand() * 150);
        owner.signal('SIGKILL');
      }
      const old = await owner.run.done;
      if (took) {
        takeovers++;
        // It noticed the takeover and stopped (16), or was killed: it never ran on to an end.
        expect(old.code === 16 || old.signal === 'SIGKILL', `${where}: the superseded owner exited ${old.code ?? old.signal}\n${old.stderr}`).toBe(true);
      }
      if (rand() < 0.35) {
        await pause(rand() * 400);
        taker.signal('SIGKILL');
      }
      owner = taker;
      checkReplayable(dir);
    }
    expect(rounds, where).toBe(20);
    expect(takeovers, where).toBeGreaterThan(10);
    await owner?.run.done;

    // Every session resumes to completion, and its replayed history is one clean run.
    for (const id of sessions) {
      for (let tries = 0; tries < 5; tries++) {
        const resumed = await runCli(['resume', id, '--json'], ws);
        expect([0, 15, 16], `${where}: resume of ${id}\n${resumed.stderr}`).toContain(resumed.code);
        if (resumed.code !== 16) break;
      }
      expect(sessionRecordSchema.parse(JSON.parse(readFileSync(join(ws.home, 'sessions', id, 'session.json'), 'utf8'))).checkpoint.status).toBe('completed');
      const history = JSON.parse((await runCli(['sessions', 'history', id, '--json'], ws)).stdout) as { event_id: number; type: string; step?: number }[];
      const ids = history.map((e) => e.event_id);
      expect(new Set(ids).size, `${where}: repeated event ids in ${id}`).toBe(ids.length);
      expect(history.filter((e) => e.type === 'step_completed').map((e) => e.step), `${where}: steps of ${id}`).toEqual(Array.from({ length: steps }, (_, n) => String(n + 1)));
      const raw = readEventLog(join(ws.home, 'sessions', id, 'events.jsonl'));
      expect(fenceEvents(raw)).toHaveLength(history.length);
    }
    for (let n = 0; n < steps; n++) expect(readFileSync(join(ws.cwd, `f${n}.txt`), 'utf8')).toBe(`step ${n}`);
  }, 90_000);

  // FIXED: source/session/execute.ts: it said the process that took the session over "now drives it" when that one had been killed since.
  it('says the process that took its session over has stopped since, when it has', async () => {
    const { ws, owner, sessionId } = await frozenPastTimeout();
    const taker = new Proc(['resume', sessionId], ws);
    expect(await taker.until(/resuming session/), taker.stderr).toBe(true);
    taker.signal('SIGKILL');
    await taker.run.done;
    const killed = { pid: taker.pid };
    owner.signal('SIGCONT');
    const done = await owner.run.done;
    expect(done.code, done.stderr).toBe(16);
    expect(done.stderr).toMatch(new RegExp(`the lock of session ${sessionId} was taken from this process while it ran, by pid ${killed.pid} .*which has stopped since \\(its owner \\(pid ${killed.pid}\\) is no longer running\\)`));
  }, 30_000);

  it('goes on to the end when nobody took its session over (Ctrl+Z past the lock timeout, then fg)', async () => {
    const { ws, owner, sessionId } = await frozenPastTimeout();
    // Well past the timeout: several of its heartbeats were missed.
    await pause(4 * frozenTimeoutMs);
    owner.signal('SIGCONT');
    const done = await owner.run.done;
    expect(done.code, done.stderr).toBe(0);
    const history = JSON.parse((await runCli(['sessions', 'history', sessionId, '--json'], ws)).stdout) as { type: string; step?: string }[];
    expect(history.filter((e) => e.type === 'step_completed').map((e) => e.step)).toEqual(Array.from({ length: steps }, (_, n) => String(n + 1)));
    for (let n = 0; n < steps; n++) expect(readFileSync(join(ws.cwd, `f${n}.txt`), 'utf8')).toBe(`step ${n}`);
  }, 30_000);
});
