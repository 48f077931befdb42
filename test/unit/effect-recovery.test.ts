import { describe, expect, it } from 'vitest';
import { settleUncertainCalls, uncertainCalls } from '../../source/engine/effect-recovery.js';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { replayEvents } from '../../source/engine/session-progress.js';
import { settleUncertain } from '../../source/session/in-progress-strategy.js';

const log = (bodies: EngineEventBody[]): EngineEvent[] => bodies.map((body, i) => ({ ...body, event_id: i + 1, ts: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z` }));
const started: EngineEventBody = { type: 'step_started', step: '0', agent: 'coder', attempt: 1, idempotency_key: 'k' };
const intended: EngineEventBody = { type: 'tool_effect_intended', call_id: 'c1', step: '0', attempt: 1, name: 'python_exec', what: 'python_exec: 2 lines' };

describe('calls with effects outside the journal, replayed', () => {
  it('are uncertain from their intent until their result', () => {
    expect(uncertainCalls(replayEvents(log([started, intended]), 1))).toEqual([{ call_id: 'c1', step: '0', attempt: 1, name: 'python_exec', what: 'python_exec: 2 lines' }]);
    const answered = replayEvents(log([started, intended, { type: 'tool_result', step: '0', attempt: 1, call_id: 'c1', name: 'python_exec', ok: true, output: 'done', output_blob: null }]), 1);
    expect(uncertainCalls(answered)).toEqual([]);
  });

  it('taken as not done, give the unfinished round an answer saying so; run again, give it none', () => {
    const progress = replayEvents(log([started, intended]), 1);
    const calls = uncertainCalls(progress);
    const notDone = replayEvents(log([started, intended, ...settleUncertainCalls(calls, 'not_done')]), 1);
    expect(uncertainCalls(notDone)).toEqual([]);
    expect(notDone.tool_outcomes['0']?.c1).toEqual({ kind: 'result', ok: false, output: expect.stringMatching(/^error: this python_exec call \(python_exec: 2 lines\) was cut off when the session stopped/), output_blob: null });
    const again = replayEvents(log([started, intended, ...settleUncertainCalls(calls, 'run_again')]), 1);
    expect(uncertainCalls(again)).toEqual([]);
    expect(again.tool_outcomes['0']?.c1).toBeUndefined();
  });

  it('are settled by the in-progress strategy: never run again unless retry says so or a person does', async () => {
    const calls = uncertainCalls(replayEvents(log([started, intended]), 1));
    expect(await settleUncertain('rollback', calls)).toBe('not_done');
    expect(await settleUncertain('retry', calls)).toBe('run_again');
    expect(await settleUncertain('prompt', calls)).toBe('not_done');
    expect(await settleUncertain('prompt', calls, async () => 'run_again')).toBe('run_again');
  });
});
