import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { highestEpoch } from '../../source/engine/epoch-fence.js';
import { readEventLog } from '../../source/store/event-log.js';
import { SessionLock } from '../../source/store/session-lock.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';
import { runCli } from '../helpers/cli.js';
import { lockGoesStale, workspace, writingSpec } from '../helpers/lock-race.js';

/**
 * A holder as `acode run` sets it up (its journal guarded by its lock), frozen between two events;
 * once woken after a takeover it tries to append what a running step would: a result, the next
 * step, a tool call — none of them durable at once — and says how many landed.
 */
const guardedHolder = `
import { SessionExecutor } from './source/engine/session-executor.ts';
import { highestEpoch } from './source/engine/epoch-fence.ts';
import { recoverProgress } from './source/engine/replay-check.ts';
import { nextAttempt } from './source/engine/session-progress.ts';
import { createProvider } from './source/providers/create-provider.ts';
import { SessionLock } from './source/store/session-lock.ts';
import { SessionStore } from './source/store/session-store.ts';
const [home, id, first] = process.argv.slice(2);
const handle = new SessionStore(home).open(id);
const events = handle.events();
const taken = SessionLock.acquire(handle.dir, 500, highestEpoch(events));
if (!taken.acquired) process.exit(3);
const progress = recoverProgress(events, handle.record.checkpoint);
const spec = handle.spec();
const journal = handle.openJournal();
journal.guardWith(() => taken.lock.stillOwned());
const run = new SessionExecutor({ sessionId: id, spec, variables: handle.record.variables, provider: createProvider(spec, {}), journal, blobs: handle.blobs(), progress, cwd: handle.record.cwd, epoch: taken.lock.epoch });
const n = progress.steps_done;
const step = String(n);
const attempt = nextAttempt(progress, step);
const key = id + ':' + step + ':' + attempt;
run.emit({ type: 'step_started', step, agent: 'worker', attempt, idempotency_key: key });
process.stdout.write('frozen\\n', () => {
  process.kill(process.pid, 'SIGSTOP');
  let landed = 0;
  const firstEvents = {
    step_completed: [],
    file_write_intended: [{ type: 'file_write_intended', call_id: 'late_write', step, attempt, path: 'late.txt', before_hash: null, before_blob: null, after_hash: 'a'.repeat(64), after_blob: 'a'.repeat(64), bytes: 4 }],
    approval_requested: [{ type: 'approval_requested', step, attempt, prompt: 'late?', context: '', default_response: 'approved' }],
  };
  for (const event of [
    ...firstEvents[first],
    { type: 'step_completed', step, agent: 'worker', attempt, idempotency_key: key, response: 'late', usage: { input: 1, output: 1 }, duration_ms: 1 },
    { type: 'step_started', step: String(n + 1), agent: 'worker', attempt: 1, idempotency_key: id + ':' + (n + 1) + ':1' },
    { type: 'tool_called', step: String(n + 1), attempt: 1, call_id: 'late_call', name: 'file_read', args: { path: 'x' } },
  ]) {
    try {
      run.emit(event);
      landed += 1;
    } catch {
      // refused: the lock is another's
    }
  }
  process.stdout.write('landed ' + landed + '\\n', () => process.exit(0));
});
`;

describe('a holder frozen past its lock timeout and woken after a takeover', () => {
  // The first append after waking meets the guard; after it the journal is sealed, so each
  // guarded kind goes first once: a step's result, a write intent, an approval request.
  it.each(['step_completed', 'file_write_intended', 'approval_requested'])('appends nothing more, %s first: the lock is checked on every append', async (first) => {
    const timeoutMs = 500;
    const child = bundleForChild(guardedHolder);
    const ws = workspace(40, timeoutMs / 1000);
    writeFileSync(join(ws.cwd, 'spec.yaml'), writingSpec(40).replace('    responses:', '    faults:\n      - { step: 1, kind: crash }\n    responses:'));
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    const id = readdirSync(join(ws.home, 'sessions'))[0]!;
    const dir = join(ws.home, 'sessions', id);
    const holder = spawn(process.execPath, [child, ws.home, id, first], { stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    holder.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const holderDone = new Promise((resolve) => holder.once('close', resolve));
    while (!said.includes('frozen')) await new Promise((resolve) => setTimeout(resolve, 20));
    await lockGoesStale(dir, timeoutMs);
    const logBefore = readEventLog(join(dir, 'events.jsonl')).length;
    const taken = SessionLock.acquire(dir, timeoutMs, highestEpoch(readEventLog(join(dir, 'events.jsonl'))));
    expect(taken.acquired).toBe(true);
    holder.kill('SIGCONT');
    await holderDone;
    expect(said).toContain('landed 0');
    expect(readEventLog(join(dir, 'events.jsonl'))).toHaveLength(logBefore);
    if (taken.acquired) taken.lock.release();
  });
});
