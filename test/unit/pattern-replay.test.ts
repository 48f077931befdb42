import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../source/engine/events.js';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { applyEvent, initialProgress } from '../../source/engine/session-progress.js';
import type { WorkflowSpec } from '../../source/spec/schema.js';
import { readEventLog } from '../../source/store/event-log.js';

/**
 * Recorded sessions of the patterns that decide at run time (test/fixtures/pattern-sessions/<type>:
 * the spec as stored and the event log as written), replayed as Temporal replays a workflow's
 * history: after each event, the steps the pattern makes ready must be the ones the recorded run
 * started next. A change that would derive other steps from an old log — and so send a resumed
 * session down another path than the one it took — fails here.
 */
const dir = 'test/fixtures/pattern-sessions';

describe('recorded sessions replayed against the patterns of this build', () => {
  it.each(readdirSync(dir).sort())('%s: derives the same steps, in the same order, from its recorded log', (type) => {
    const spec = JSON.parse(readFileSync(join(dir, type, 'spec.json'), 'utf8')) as WorkflowSpec;
    const events: EngineEvent[] = readEventLog(join(dir, type, 'events.jsonl'));
    const pattern = patternFor(spec);
    expect(pattern.type).toBe(type);
    const progress = initialProgress(0);
    const started = events.filter((event) => event.type === 'step_started').map((event) => (event as { step: string }).step);
    let next = 0;
    for (const event of events) {
      if (event.type === 'step_started') {
        // What the recorded run started is among what the pattern offers now, given the same past.
        expect(pattern.ready(progress).map((step) => step.id), `before ${event.step}`).toContain(event.step);
        expect(event.step).toBe(started[next++]);
      }
      applyEvent(progress, event);
    }
    expect(pattern.finished(progress)).toBe(true);
    expect(pattern.ready(progress)).toEqual([]);
    expect(pattern.halted?.(progress)).toBeUndefined();
    // The shape a view draws of the finished session: every step it ran, in the order it ran them.
    expect(pattern.shape(progress).map((node) => node.id)).toEqual(started);
  });
});
