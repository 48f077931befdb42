import { describe, expect, it } from 'vitest';
import { presetAnswer, type ApprovalDesk } from '../../source/engine/approval.js';
import { toCheckpoint } from '../../source/engine/session-progress.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import type { ChainPattern } from '../../source/spec/schema.js';
import { executorFor, MemoryJournal, replayed } from '../helpers/engine-harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const spec = `version: 0
name: gate
runtime: { provider: scripted }
agents:
  a: { prompt: "p" }
pattern:
  type: chain
  config:
    steps:
      - { agent: a, input: "one" }
      - { type: approval, prompt: "Go on after {{ steps[0].response | truncate(10) }}?", default: yes }
      - { agent: a, input: "review was {{ steps[1].response }}" }
`;

describe('an approval step in the engine', () => {
  it('validates as strands-cli spells it (hitl) and as approval, with its templates checked', () => {
    expect(((loadSpecText(spec.replace('type: approval', 'type: hitl'), 'gate.yaml').spec).pattern as ChainPattern).config.steps).toHaveLength(3);
    expect(() => loadSpecText(spec.replace('{{ steps[0].response | truncate(10) }}', '{% if steps %}unclosed'), 'gate.yaml')).toThrow(/steps\.1\.prompt/);
  });

  it('with nobody to answer, stops in AWAITING_APPROVAL, and a resume with an answer continues after it', async () => {
    const journal = new MemoryJournal();
    const first = executorFor(spec, { cwd: tempDir(), journal });
    const summary = await first.executor.run();
    expect(summary).toMatchObject({ status: 'awaiting_approval', steps_executed: 1 });
    const progress = replayed(journal, 3);
    expect(toCheckpoint(progress)).toMatchObject({ status: 'awaiting_approval', steps_done: 1, in_progress: { '1': { step: '1', attempt: 1 } }, awaiting: ['1'] });
    expect(journal.events.find((e) => e.type === 'approval_requested')).toMatchObject({ step: '1', prompt: expect.stringMatching(/^Go on after /), default_response: 'yes' });

    const resumed = executorFor(spec, { cwd: tempDir(), journal, progress, approvals: presetAnswer({ decision: 'approved' }) });
    expect(await resumed.executor.run()).toMatchObject({ status: 'completed', steps_executed: 2, steps_skipped: 1 });
    const answered = journal.events.filter((e) => e.type === 'step_completed').map((e) => (e as { response: string }).response);
    expect(answered[1]).toBe('yes'); // the default response
    expect(journal.events.filter((e) => e.type === 'approval_requested').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2]);
  });

  it('records an edited response as the step result, and a rejection cancels the session', async () => {
    const edited = executorFor(spec, { cwd: tempDir(), approvals: presetAnswer({ decision: 'edited', response: 'only the summary' }) });
    expect((await edited.executor.run()).status).toBe('completed');
    expect(edited.journal.events.find((e) => e.type === 'step_completed' && e.step === '1')).toMatchObject({ response: 'only the summary' });

    const rejected = executorFor(spec, { cwd: tempDir(), approvals: presetAnswer({ decision: 'rejected' }) });
    expect((await rejected.executor.run()).status).toBe('cancelled');
    expect(rejected.journal.events.at(-1)).toMatchObject({ type: 'session_cancelled', reason: 'approval_rejected', step: '1' });
    expect(rejected.journal.events.filter((e) => e.type === 'step_started')).toHaveLength(2); // step 3 never ran
  });

  it('applies an answer the log already holds (the process died after it) instead of asking again', async () => {
    const journal = new MemoryJournal();
    const first = executorFor(spec, { cwd: tempDir(), journal, approvals: presetAnswer({ decision: 'edited', response: 'keep it short' }) });
    await first.executor.run();
    // As if killed right after the answer was journaled: the log ends there.
    journal.events.splice(journal.events.findIndex((e) => e.type === 'approval_answered') + 1);
    const progress = replayed(journal, 3);
    expect(progress).toMatchObject({ status: 'running', steps_done: 1, answered: { '1': { decision: 'edited', response: 'keep it short' } } });

    const before = journal.events.length;
    const resumed = executorFor(spec, { cwd: tempDir(), journal, progress }); // nobody to answer
    expect((await resumed.executor.run()).status).toBe('completed');
    const after = journal.events.slice(before);
    expect(after.some((e) => e.type === 'approval_requested')).toBe(false);
    expect(after.find((e) => e.type === 'step_completed' && e.step === '1')).toMatchObject({ response: 'keep it short' });
  });
});

/** Approvals asked in a terminal while other branches have model work to do. */
const slotsSpec = `version: 0
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

describe('approvals and runtime.max_parallel', () => {
  // Was: session-executor.ts runReadySteps counts a step waiting for a person's answer against
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
    const { executor, journal } = executorFor(slotsSpec, { cwd: tempDir(), approvals: desk });
    executor.subscribe((event) => {
      if (event.type === 'step_started' && event.step === 'c/0') order.push('started c/0');
    });
    const summary = await executor.run();
    expect(summary.status).toBe('completed');
    expect(journal.events.filter((e) => e.type === 'approval_answered')).toHaveLength(2);
    expect(order[0]).toBe('started c/0');
  });
});
