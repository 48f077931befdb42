import { describe, expect, it } from 'vitest';
import { eventShapeProblem } from '../../source/engine/event-shape.js';
import { upgradeEvent } from '../../source/engine/event-upgrade.js';
import type { EngineEvent } from '../../source/engine/events.js';

const read = (event: Record<string, unknown>) => upgradeEvent({ event_id: 1, ts: '2026-01-01T00:00:00.000Z', ...event } as unknown as EngineEvent);

describe('events of early acode builds', () => {
  // FIXED: source/engine/event-upgrade.ts: early 0.1 builds wrote session_started without tokens, conversation_reset without
  // usage and step_completed without idempotency_key; once events were read by their shape (event-shape.ts), such a log was
  // called damaged.
  it('read as whole events of today, counting what they did not count as nothing', () => {
    const started = read({ type: 'session_started', workflow_name: 'w', steps_total: 2, resumed: false, steps_skipped: 0 });
    const reset = read({ type: 'conversation_reset', step: '0', attempt: 1, blob: 'b', summary_source: 'model', summary_chars: 10, dropped_messages: 3 });
    const completed = read({ type: 'step_completed', step: '0', agent: 'a', attempt: 2, response: 'r', usage: { input: 1, output: 2 }, duration_ms: 5 });
    for (const event of [started, reset, completed]) expect(eventShapeProblem(event)).toBeUndefined();
    expect(started).toMatchObject({ tokens: { input: 0, output: 0 } });
    expect(reset).toMatchObject({ usage: { input: 0, output: 0 } });
    expect(completed).toMatchObject({ idempotency_key: '0:2' });
  });

  it('still names a line that lacks what every build wrote', () => {
    expect(eventShapeProblem(read({ type: 'step_completed', step: '0', agent: 'a', attempt: 1, usage: { input: 1, output: 2 }, duration_ms: 5 }))).toBe('step_completed has no response');
  });
});
