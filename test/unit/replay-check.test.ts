import { describe, expect, it } from 'vitest';
import { planContinuation, describePlan } from '../../source/engine/continuation-plan.js';
import { chainPattern } from '../../source/engine/patterns/chain.js';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { recoverProgress, ReplayError } from '../../source/engine/replay-check.js';
import { applyEvent, initialProgress, toCheckpoint } from '../../source/engine/session-progress.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { chainSpec } from '../helpers/chain-spec.js';

const usage = { input: 3, output: 5 };

/** A log of `done` completed steps out of 3, plus `started` attempts of the next one. */
function log(done: number, started = 0): EngineEvent[] {
  const bodies: EngineEventBody[] = [{ type: 'session_started', workflow_name: 'w', steps_total: 3, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } }];
  for (let step = 0; step < done; step++) {
    bodies.push({ type: 'step_started', step: String(step), agent: 'a', attempt: 1, idempotency_key: `s:${step}:1` });
    bodies.push({ type: 'step_completed', step: String(step), agent: 'a', attempt: 1, idempotency_key: `s:${step}:1`, response: `r${step}`, usage, duration_ms: 1 });
  }
  for (let attempt = 1; attempt <= started; attempt++) bodies.push({ type: 'step_started', step: String(done), agent: 'a', attempt, idempotency_key: `s:${done}:${attempt}` });
  return bodies.map((body, i) => ({ ...body, event_id: i + 1, ts: new Date(1000 + i).toISOString() }) as EngineEvent);
}

function checkpointAt(events: EngineEvent[], lastId: number) {
  const progress = initialProgress(3);
  for (const event of events.filter((e) => e.event_id <= lastId)) applyEvent(progress, event);
  return toCheckpoint(progress);
}

describe('recovering progress from the event log', () => {
  it('returns the replayed progress when it equals the checkpoint', () => {
    const events = log(2);
    const progress = recoverProgress(events, checkpointAt(events, events.length));
    expect(progress.steps_done).toBe(2);
    expect(Object.values(progress.completed).map((r) => r.response)).toEqual(['r0', 'r1']);
  });

  it('rolls forward events written after the last checkpoint (a crash between log and checkpoint)', () => {
    const events = log(2, 1);
    const checkpoint = checkpointAt(events, 3); // written after step 0 completed
    const progress = recoverProgress(events, checkpoint);
    expect(progress.steps_done).toBe(2);
    expect(progress.in_progress).toEqual({ '2': { step: '2', attempt: 1, idempotency_key: 's:2:1' } });
  });

  it('orders events by (timestamp, event_id), not by position in the file', () => {
    const events = log(2);
    const shuffled = [events[3]!, events[0]!, events[4]!, events[2]!, events[1]!];
    expect(recoverProgress(shuffled, checkpointAt(events, events.length)).steps_done).toBe(2);
  });

  it('refuses a checkpoint the replay does not reproduce', () => {
    const events = log(2);
    const checkpoint = { ...checkpointAt(events, events.length), steps_done: 1 };
    expect(() => recoverProgress(events, checkpoint)).toThrowError(expect.objectContaining({ kind: 'nondeterministic', message: expect.stringContaining('steps_done') }));
  });

  it('refuses a log that ends before its checkpoint', () => {
    const events = log(2);
    expect(() => recoverProgress(events.slice(0, 3), checkpointAt(events, events.length))).toThrowError(/events were lost/);
  });

  it('refuses repeated event ids and repeated idempotency keys', () => {
    const events = log(1);
    const repeatedId = [...events, { ...events[1]!, ts: new Date(9000).toISOString() }];
    expect(() => recoverProgress(repeatedId, checkpointAt(events, events.length))).toThrowError(ReplayError);
    const repeatedKey = [...events, { ...events[1]!, event_id: 9, ts: new Date(9000).toISOString() }];
    expect(() => recoverProgress(repeatedKey, checkpointAt(events, events.length))).toThrowError(expect.objectContaining({ kind: 'idempotency_conflict' }));
  });

  it('refuses a step completed twice under different attempts, even when the checkpoint agrees with the log', () => {
    // Step 0 completes under attempt 1, is started again as attempt 2 (fresh key) and completes again.
    const events = log(1);
    const again: EngineEventBody[] = [
      { type: 'step_started', step: '0', agent: 'a', attempt: 2, idempotency_key: 's:0:2' },
      { type: 'step_completed', step: '0', agent: 'a', attempt: 2, idempotency_key: 's:0:2', response: 'r0 again', usage, duration_ms: 1 },
    ];
    const twice = [...events, ...again.map((body, i) => ({ ...body, event_id: events.length + 1 + i, ts: new Date(2000 + i).toISOString() }) as EngineEvent)];
    // The checkpoint was written after the second completion: only the idempotency check can object.
    const checkpoint = checkpointAt(twice, twice.length);
    expect(() => recoverProgress(twice, checkpoint)).toThrowError(
      expect.objectContaining({ name: 'ReplayError', kind: 'idempotency_conflict', message: 'step 1 completed twice (s:0:1, then s:0:2 at event 5)' }),
    );
  });
});

describe('the continuation plan', () => {
  const { spec } = loadSpecText(chainSpec({ steps: 3, provider: 'scripted' }), 'spec.yaml');

  it('skips completed steps, retries the in-progress one and queues the rest', () => {
    const events = log(1, 2);
    const plan = planContinuation(patternFor(spec), recoverProgress(events, checkpointAt(events, 3)), checkpointAt(events, 3));
    expect(plan.skip).toEqual([{ step: '0', name: '1', title: 'step 1', agent: 'worker' }]);
    expect(plan.in_progress).toMatchObject([{ step: '1', attempt: 2, next_attempt: 3 }]);
    expect(plan.remaining).toEqual([{ step: '2', name: '3', title: 'step 3', agent: 'worker' }]);
    expect(plan.last_checkpoint.event_id).toBe(3);
    expect(plan.log_events).toBe(5);
    expect(describePlan(plan)).toEqual([
      expect.stringMatching(/^state: +running · last checkpoint at event 3 of 5 \(/),
      'skip (done):     1 worker',
      expect.stringMatching(/^in progress: +2 worker, attempt 2 → retry as attempt 3/),
      'remaining:       3 worker',
    ]);
  });

  it('has nothing in progress when the session stopped between steps', () => {
    const events = log(2);
    const plan = planContinuation(patternFor(spec), recoverProgress(events, checkpointAt(events, events.length)), checkpointAt(events, events.length));
    expect(plan.in_progress).toEqual([]);
    expect(plan.remaining).toEqual([{ step: '2', name: '3', title: 'step 3', agent: 'worker' }]);
  });
});

/** What planning a resume costs as a session grows. */
function planMs(steps: number): number {
  const pattern = chainPattern(Array.from({ length: steps }, (_, i) => ({ agent: 'w', input: `step ${i}` })));
  const progress = initialProgress(steps);
  for (let i = 0; i < steps - 1; i++) progress.completed[String(i)] = { id: String(i), agent: 'w', response: 'r', tokens_estimated: 0 };
  const started = performance.now();
  const plan = planContinuation(pattern, progress, { last_event_id: 0, last_event_at: null });
  const elapsed = performance.now() - started;
  expect(plan.skip).toHaveLength(steps - 1);
  return elapsed;
}

describe('the continuation plan as a session grows', () => {
  it('of a 20,000-step chain costs about ten times that of a 2,000-step one, not a hundred', () => {
    planMs(2000); // warm-up
    const small = Math.min(planMs(2000), planMs(2000));
    const large = planMs(20_000);
    // Linear would be ~10×; each planned step looked up by a scan of the shape made it ~100× (1.5 s at 30,000 steps).
    expect(large).toBeLessThan(Math.max(30 * small, 250));
  });
});
