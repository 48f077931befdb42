import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEventLog } from '../../source/store/event-log.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';
import { runCli } from '../helpers/cli.js';
import { checkReplayable, lockGoesStale, pause, Proc, random, steps, workspace, writingSpec } from '../helpers/lock-race.js';

/**
 * A lock holder caught between its ownership check and its writes: it takes the lock over from the
 * crashed owner, starts the next step, freezes (SIGSTOP), and once woken appends what a real holder
 * would — tool call, step result, next step — and rewrites session.json, never checking again.
 */
const frozenHolder = `
import { SessionExecutor } from './source/engine/session-executor.ts';
import { highestEpoch } from './source/engine/epoch-fence.ts';
import { recoverProgress } from './source/engine/replay-check.ts';
import { nextAttempt } from './source/engine/session-progress.ts';
import { createProvider } from './source/providers/create-provider.ts';
import { SessionLock } from './source/store/session-lock.ts';
import { SessionStore } from './source/store/session-store.ts';
const [home, id] = process.argv.slice(2);
const handle = new SessionStore(home).open(id);
const events = handle.events();
const taken = SessionLock.acquire(handle.dir, 500, highestEpoch(events));
if (!taken.acquired) process.exit(3);
const progress = recoverProgress(events, handle.record.checkpoint);
const spec = handle.spec();
const journal = handle.openJournal();
const run = new SessionExecutor({ sessionId: id, spec, variables: handle.record.variables, provider: createProvider(spec, {}), journal, blobs: handle.blobs(), progress, cwd: handle.record.cwd, epoch: taken.lock.epoch });
const n = progress.steps_done;
const step = String(n);
const attempt = nextAttempt(progress, step);
const key = id + ':' + step + ':' + attempt;
run.emit({ type: 'step_started', step, agent: 'worker', attempt, idempotency_key: key });
process.stdout.write('frozen\\n', () => {
  process.kill(process.pid, 'SIGSTOP');
  run.emit({ type: 'tool_called', step, attempt, call_id: 'call_' + step + '_0', name: 'file_write', args: { path: 'f' + step + '.txt', content: 'step ' + step } });
  run.emit({ type: 'step_completed', step, agent: 'worker', attempt, idempotency_key: key, response: 'step ' + step + ' done', usage: { input: 1, output: 1 }, duration_ms: 1 });
  run.emit({ type: 'step_started', step: String(n + 1), agent: 'worker', attempt: 1, idempotency_key: id + ':' + (n + 1) + ':1' });
  journal.close();
});
`;

describe('a lock holder that lost its lock', () => {
  it("fences out, by epoch, what a holder frozen between its ownership check and its writes appends after a takeover", async () => {
    const timeoutMs = 500;
    const child = bundleForChild(frozenHolder);
    const seed = Date.now() % 100_000;
    const rand = random(seed);
    let fenced = 0;
    for (let round = 0; round < 3; round++) {
      const where = `seed ${seed}, round ${round}`;
      const ws = workspace(40, timeoutMs / 1000);
      writeFileSync(join(ws.cwd, 'spec.yaml'), writingSpec(40).replace('    responses:', `    faults:\n      - { step: ${1 + round}, kind: crash }\n    responses:`));
      expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
      const id = readdirSync(join(ws.home, 'sessions'))[0]!;
      const dir = join(ws.home, 'sessions', id);
      const holder = spawn(process.execPath, [child, ws.home, id], { stdio: ['ignore', 'pipe', 'inherit'] });
      const holderDone = new Promise((resolve) => holder.once('close', resolve));
      await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
      await lockGoesStale(dir, timeoutMs);
      const taker = new Proc(['resume', id], ws);
      expect(await taker.until(/resuming session/), `${where}\n${taker.stderr}`).toBe(true);
      await pause(rand() * 200);
      holder.kill('SIGCONT');
      await holderDone;
      // Half the time the new holder dies at once, leaving the old holder's session.json behind.
      if (round % 2 === 0) taker.signal('SIGKILL');
      await taker.run.done;
      checkReplayable(dir);
      // With a 0.5 s lock timeout, a resume stalled that long on a loaded machine gives its lock up
      // (exit 16, as a frozen holder must): the next try goes on from there.
      for (let tries = 0; tries < 5; tries++) {
        const resumed = await runCli(['resume', id, '--json'], ws);
        expect([0, 15, 16], `${where}: resume\n${resumed.stderr}`).toContain(resumed.code);
        if (resumed.code === 15) break;
      }
      const history = JSON.parse((await runCli(['sessions', 'history', id, '--json'], ws)).stdout) as { event_id: number; type: string; step?: number }[];
      expect(new Set(history.map((e) => e.event_id)).size, where).toBe(history.length);
      expect(history.filter((e) => e.type === 'step_completed').map((e) => e.step), where).toEqual(Array.from({ length: steps }, (_, n) => String(n + 1)));
      expect(history.at(-1)?.type).toBe('session_completed');
      fenced += readEventLog(join(dir, 'events.jsonl')).length - history.length;
    }
    // The old holder's appends reached the log and were fenced out (not merely never written).
    expect(fenced, `seed ${seed}`).toBeGreaterThan(0);
  });

  it('stops before its next model call or file write, long before its next heartbeat, once another process holds the lock', async () => {
    // Heartbeats every 15 s; each step takes about 0.3 s: only the check before each outside effect can notice in time.
    const ws = workspace(150, 60);
    const first = new Proc(['run', 'spec.yaml'], ws);
    expect(await first.until(/▶ step 3\//)).toBe(true);
    const id = /session ([0-9a-f]{16})/.exec(first.stderr)![1]!;
    expect((await runCli(['sessions', 'unlock', id, '--force'], ws)).code).toBe(0);
    const unlockedAt = Date.now();
    const second = new Proc(['resume', id, '--json'], ws);
    const lost = await first.run.done;
    expect(lost.code, lost.stderr).toBe(16);
    // Seen before the resume took the lock, or after: either is said as it is.
    expect(lost.stderr).toMatch(/ACODE-RESUME-003: (lost the lock of session [0-9a-f]+ to pid \d+ since|the lock of session [0-9a-f]+ was taken from this process while it ran)/);
    expect(Date.now() - unlockedAt).toBeLessThan(5000);
    const resumed = await second.run.done;
    expect(resumed.code, resumed.stderr).toBe(0);
    const history = JSON.parse((await runCli(['sessions', 'history', id, '--json'], ws)).stdout) as { event_id: number; type: string; step?: number }[];
    expect(new Set(history.map((e) => e.event_id)).size).toBe(history.length);
    expect(history.filter((e) => e.type === 'step_completed').map((e) => e.step)).toEqual(Array.from({ length: steps }, (_, n) => String(n + 1)));
  });
});
