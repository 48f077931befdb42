import { describe, expect, it } from 'vitest';
import { presetAnswer } from '../../source/engine/approval.js';
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
