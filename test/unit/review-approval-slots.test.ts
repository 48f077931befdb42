import { describe, expect, it } from 'vitest';
import type { ApprovalDesk } from '../../source/engine/approval.js';
import { executorFor } from '../helpers/engine-harness.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Hostile review (issue #13): approvals asked in a terminal while other branches have model work to do. */

const spec = `version: 0
name: slots
runtime:
  provider: scripted
  model_id: m
  max_parallel: 2
  scripted:
    latency_ms: 20
agents:
  w: { prompt: "worker" }
pattern:
  type: parallel
  config:
    branches:
      - { id: a, steps: [ { type: hitl, prompt: "a?" } ] }
      - { id: b, steps: [ { type: hitl, prompt: "b?" } ] }
      - { id: c, steps: [ { agent: w, input: "c0" } ] }
`;

describe('review: approvals and runtime.max_parallel', () => {
  // Found by the hostile review (fixed): session-executor.ts runReadySteps counts a step waiting for a person's answer against
  // runtime.max_parallel, so two open questions (max_parallel 2) keep a third branch's model call from
  // starting until someone answers — "an approval inside a branch waits without stopping the other branches".
  it('a question waiting for its answer does not hold a slot another branch\'s model call needs', async () => {
    const order: string[] = [];
    // The person answers only after a while, as people do.
    const desk: ApprovalDesk = {
      answer: (request) => new Promise((resolve) => setTimeout(() => {
        order.push(`answered ${request.step}`);
        resolve({ decision: 'approved' });
      }, 1500)),
    };
    const { executor, journal } = executorFor(spec, { cwd: tempDir(), approvals: desk });
    executor.subscribe((event) => {
      if (event.type === 'step_started' && event.step === 'c/0') order.push('started c/0');
    });
    const summary = await executor.run();
    expect(summary.status).toBe('completed');
    expect(journal.events.filter((e) => e.type === 'approval_answered')).toHaveLength(2);
    expect(order[0]).toBe('started c/0');
  });
});
