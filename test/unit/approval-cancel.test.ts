import { describe, expect, it } from 'vitest';
import type { ApprovalDesk } from '../../source/engine/approval.js';
import { toCheckpoint } from '../../source/engine/session-progress.js';
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
      - { type: approval, prompt: "Go on?" }
      - { agent: a, input: "two" }
`;

/** A person at the run view who never answers: the question stays open until the run is stopped. */
const silentPerson: ApprovalDesk = {
  answer: (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true })),
};

describe('stopping a run while only an approval waits (Ctrl+C at its prompt)', () => {
  it('leaves the session awaiting the answer, as a run with nobody to ask does, not paused', async () => {
    const journal = new MemoryJournal();
    const { executor } = executorFor(spec, { cwd: tempDir(), journal, approvals: silentPerson });
    executor.subscribe((event) => {
      if (event.type === 'approval_requested') queueMicrotask(() => executor.cancel());
    });
    expect(await executor.run()).toMatchObject({ status: 'awaiting_approval', steps_executed: 1 });
    expect(journal.events.map((e) => e.type)).not.toContain('session_paused');
    expect(toCheckpoint(replayed(journal, 3))).toMatchObject({ status: 'awaiting_approval', awaiting: ['1'], stop_reason: null });
  });

  it('still pauses the session when another branch was running: that branch was stopped', async () => {
    const parallel = `version: 0
name: gate
runtime: { provider: scripted, scripted: { latency_ms: 30000 } }
agents:
  a: { prompt: "p" }
pattern:
  type: parallel
  config:
    branches:
      - { id: asks, steps: [ { type: approval, prompt: "Go on?" } ] }
      - { id: works, steps: [ { agent: a, input: "slow" } ] }
`;
    const journal = new MemoryJournal();
    const { executor } = executorFor(parallel, { cwd: tempDir(), journal, approvals: silentPerson });
    // Stopped once the question is open and the other branch's model call under way.
    const seen = new Set<string>();
    executor.subscribe((event) => {
      if (event.type === 'approval_requested' || (event.type === 'step_started' && event.agent === 'a')) seen.add(event.type);
      if (seen.size === 2) queueMicrotask(() => executor.cancel());
    });
    expect((await executor.run()).status).toBe('paused');
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'user_exit' });
  });
});
