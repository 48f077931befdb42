import { describe, expect, it } from 'vitest';
import type { ApprovalDesk } from '../../source/engine/approval.js';
import type { AutoResumePolicy } from '../../source/engine/resume-strategy.js';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { replayEvents, toCheckpoint } from '../../source/engine/session-progress.js';
import { checkpointSteps, replaySteps, sessionSteps } from '../../source/state/session-steps.js';
import { executorFor } from '../helpers/engine-harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const dag = (extra: string) => `version: 0
name: dag
runtime:
  provider: scripted
${extra}
agents:
  researcher: { prompt: "You research." }
pattern:
  type: workflow
  config:
    tasks:
      - { id: overview, agent: researcher, input: "Overview" }
      - { id: technical, agent: researcher, deps: [overview], input: "Technical" }
      - { id: applications, agent: researcher, deps: [overview], input: "Applications" }
      - { id: synthesis, agent: researcher, deps: [technical, applications], input: "Synthesis" }
`;

/** Runs a spec on the real executor and reads its steps back from the events it journaled. */
async function ranSteps(text: string, options: { approvals?: ApprovalDesk; autoResume?: AutoResumePolicy; live?: boolean; upTo?: (type: string, step?: string) => boolean } = {}) {
  const { executor, journal, spec } = executorFor(text, { cwd: tempDir(), approvals: options.approvals, autoResume: options.autoResume });
  await executor.run();
  let events = journal.events;
  const cut = options.upTo ? events.findIndex((e) => options.upTo!(e.type, 'step' in e ? (e.step ?? undefined) : undefined)) : -1;
  if (cut >= 0) events = events.slice(0, cut + 1);
  const pattern = patternFor(spec);
  return Object.fromEntries(sessionSteps(pattern, replaySteps(events, 0), options.live ?? false).map((step) => [step.id, step.status]));
}

describe('where the steps of a stored session stand', () => {
  it('marks the task a failed session failed on, keeps its finished neighbour done and what depends on it pending', async () => {
    const failing = dag(`  scripted:\n    faults: [{ step: technical, kind: error, times: 9 }]`);
    const steps = await ranSteps(failing, { autoResume: { enabled: true, maxAttempts: 5, onUnknown: 'fail' } });
    expect(steps).toEqual({ overview: 'done', technical: 'failed', applications: 'done', synthesis: 'pending' });
    // Paused by the same error instead (resume.on_unknown: pause), the task is only interrupted: a resume retries it.
    expect(await ranSteps(failing, { autoResume: { enabled: true, maxAttempts: 5, onUnknown: 'pause' } })).toMatchObject({ technical: 'interrupted' });
  });

  it('tells a step its process still runs from one nobody runs any more', async () => {
    const startedTechnical = (type: string, step?: string) => type === 'step_started' && step === 'technical';
    expect(await ranSteps(dag(''), { live: true, upTo: startedTechnical })).toMatchObject({ overview: 'done', technical: 'running' });
    expect(await ranSteps(dag(''), { live: false, upTo: startedTechnical })).toMatchObject({ overview: 'done', technical: 'interrupted' });
  });

  it('leaves pending the step a session paused before (the token budget ran out)', async () => {
    const steps = await ranSteps(dag(`  max_parallel: 1\n  budgets: { max_tokens: 1 }`));
    // The budget pauses the session before the step starts (resumable with it raised): nothing of it ran.
    expect(steps).toEqual({ overview: 'done', technical: 'pending', applications: 'pending', synthesis: 'pending' });
  });

  it('marks a rejected approval failed, and one nobody answered awaiting', async () => {
    const gate = `version: 0
name: gate
runtime: { provider: scripted }
agents:
  worker: { prompt: "You work." }
pattern:
  type: parallel
  config:
    branches:
      - id: web
        steps:
          - { agent: worker, input: "scrape" }
          - { type: hitl, prompt: "ok?", default: approved }
      - id: docs
        steps:
          - { agent: worker, input: "read" }
`;
    const reject: ApprovalDesk = { answer: async () => ({ decision: 'rejected' }) };
    expect(await ranSteps(gate, { approvals: reject })).toEqual({ 'web/0': 'done', 'web/1': 'failed', 'docs/0': 'done' });
    expect(await ranSteps(gate)).toEqual({ 'web/0': 'done', 'web/1': 'awaiting', 'docs/0': 'done' });
  });

  it('reads a chain from its checkpoint when the log trails it, and leaves other patterns pending', () => {
    const chain = executorFor(`version: 0\nname: c\nruntime: { provider: scripted }\nagents: { w: { prompt: p } }\npattern: { type: chain, config: { steps: [{ agent: w, input: a }, { agent: w, input: b }, { agent: w, input: c }] } }\n`, { cwd: tempDir() });
    expect(checkpointSteps(patternFor(chain.spec), { status: 'running', steps_done: 1 }, false).map((s) => s.status)).toEqual(['done', 'interrupted', 'pending']);
    expect(checkpointSteps(patternFor(chain.spec), { status: 'failed', steps_done: 2 }, false).map((s) => s.status)).toEqual(['done', 'done', 'failed']);
    const workflow = executorFor(dag(''), { cwd: tempDir() });
    expect(checkpointSteps(patternFor(workflow.spec), { status: 'running', steps_done: 2 }, false).every((s) => s.status === 'pending')).toBe(true);
  });

  it('reads the same from a chain\'s current checkpoint as from its log, in every way a chain ends', async () => {
    const chain = (extra = '', gate = false) => `version: 0
name: c
runtime:
  provider: scripted
${extra}
agents: { w: { prompt: p } }
pattern:
  type: chain
  config:
    steps:
      - { agent: w, input: a }
${gate ? '      - { type: hitl, prompt: "ok?", default: approved }' : '      - { agent: w, input: b }'}
      - { agent: w, input: c }
`;
    const failing = chain(`  scripted:\n    faults: [{ step: 1, kind: error, times: 9 }]`);
    const reject: ApprovalDesk = { answer: async () => ({ decision: 'rejected' }) };
    const runs: [string, string, { approvals?: ApprovalDesk; autoResume?: AutoResumePolicy }][] = [
      ['completed', chain(), {}],
      ['paused', failing, { autoResume: { enabled: true, maxAttempts: 5, onUnknown: 'pause' } }],
      ['failed', failing, { autoResume: { enabled: true, maxAttempts: 5, onUnknown: 'fail' } }],
      ['awaiting_approval', chain('', true), {}],
      ['cancelled', chain('', true), { approvals: reject }],
    ];
    for (const [status, text, options] of runs) {
      const { executor, journal, spec } = executorFor(text, { cwd: tempDir(), ...options });
      await executor.run();
      const pattern = patternFor(spec);
      // Cut after the second step started (a crash there), and as it ended.
      const started = journal.events.findIndex((e) => e.type === 'step_started' && e.step === '1');
      for (const events of [journal.events, journal.events.slice(0, started + 1)]) {
        const progress = replayEvents(events, 3);
        const checkpoint = { ...toCheckpoint(progress), in_progress: Object.keys(progress.in_progress) };
        for (const live of [false, true]) {
          const fromLog = sessionSteps(pattern, replaySteps(events, 3), live).map((step) => step.status);
          expect(checkpointSteps(pattern, checkpoint, live).map((step) => step.status), `${status}, ${events.length} events, live ${live}`).toEqual(fromLog);
        }
      }
      expect(replayEvents(journal.events, 3).status).toBe(status);
    }
  });
});
