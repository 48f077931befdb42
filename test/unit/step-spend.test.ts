import { describe, expect, it } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { replayEvents, toCheckpoint } from '../../source/engine/session-progress.js';
import { replaySteps } from '../../source/state/session-steps.js';

let id = 0;
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
const ev = (seconds: number, body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: at(seconds) });

/** Step 0: a tool round, then its answer. Step 1: a tool round, a context overflow, a summary, the next attempt's answer. */
const events: EngineEvent[] = [
  ev(0, { type: 'session_started', workflow_name: 'w', steps_total: 2, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } }),
  ev(0, { type: 'step_started', step: '0', agent: 'a', attempt: 1, idempotency_key: 'k' }),
  ev(1, { type: 'conversation_saved', step: '0', attempt: 1, blob: 'b', messages: 3, usage: { input: 10, output: 5 } }),
  ev(1, { type: 'tool_called', step: '0', attempt: 1, call_id: 'c1', name: 'file_read', args: { path: 'x' } }),
  ev(1, { type: 'tool_result', step: '0', attempt: 1, call_id: 'c1', name: 'file_read', ok: true, output: 'text', output_blob: null }),
  ev(1, { type: 'conversation_saved', step: '0', attempt: 1, blob: 'b2', messages: 4, usage: { input: 0, output: 0 } }),
  ev(3, { type: 'step_completed', step: '0', agent: 'a', attempt: 1, idempotency_key: 'k', response: 'first\nsecond', usage: { input: 20, output: 7 }, duration_ms: 3000 }),
  ev(3, { type: 'step_started', step: '1', agent: 'a', attempt: 1, idempotency_key: 'k' }),
  ev(4, { type: 'conversation_saved', step: '1', attempt: 1, blob: 'b3', messages: 3, usage: { input: 30, output: 6 } }),
  ev(5, { type: 'resume_attempt', step: '1', attempt: 1, max_attempts: 5, stop_reason: 'context_exhausted', retry_after_ms: null, strategy: 'new_session', message: 'too long', outcome: { kind: 'delayed', next_attempt_at: at(5) } }),
  ev(6, { type: 'conversation_reset', step: '1', attempt: 1, blob: 'b4', summary_source: 'model', summary_chars: 10, dropped_messages: 3, usage: { input: 40, output: 8 } }),
  // The wait between the attempts (6 → 20) is not the step's time.
  ev(20, { type: 'step_started', step: '1', agent: 'a', attempt: 2, idempotency_key: 'k' }),
  ev(22, { type: 'step_completed', step: '1', agent: 'a', attempt: 2, idempotency_key: 'k', response: 'done', usage: { input: 50, output: 9 }, duration_ms: 2000 }),
];

describe("a step's spend", () => {
  it('sums every model call of every attempt, so the steps add up to the session total', () => {
    const progress = replayEvents(events, 2);
    expect(progress.spent['0']).toEqual({ input: 30, output: 12 });
    expect(progress.spent['1']).toEqual({ input: 120, output: 23 });
    expect(progress.tokens).toEqual({ input: 150, output: 35 });
    expect(progress.completed['1']!.tokens_estimated).toBe(143);
    // Replayed, never stored: the checkpoint keeps its size.
    expect(toCheckpoint(progress)).not.toHaveProperty('spent');
  });

  it("tells each step's attempt, time, response and tool calls", () => {
    const { results } = replaySteps(events, 2);
    expect(results.get('0')).toMatchObject({ attempt: 1, elapsed_ms: 3000, response: 'first\nsecond', tools: [{ name: 'file_read', ok: true, output: 'text' }] });
    // Attempt 1 ran from 3 s to its summary at 6 s; attempt 2 from 20 s to 22 s.
    expect(results.get('1')).toMatchObject({ attempt: 2, tokens: { input: 120, output: 23 }, elapsed_ms: 3000 + 2000 });
  });
});
