import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { createRunStore } from '../../source/state/run-store.js';
import { loadPriceTable, stepPricer, type StepPricer } from '../../source/state/step-cost.js';
import { RunView } from '../../source/ui/run/run-view.js';
import { renderInk } from '../helpers/ink.js';

let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });

function setup(price?: StepPricer) {
  const steps = ['researcher', 'analyst', 'writer'].map((label, i) => ({ id: String(i), label, title: `step ${i + 1}`, group: null }));
  const controls = { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval: vi.fn() };
  const store = createRunStore({ sessionId: 'abcd1234abcd1234', workflowName: 'demo', steps, controls, now: () => 0, price });
  const ui = renderInk(<RunView store={store} onForceQuit={vi.fn()} />);
  const apply = (body: EngineEventBody) => store.getState().apply(ev(body));
  return { store, ui, apply };
}

const started = (skipped: number) => ({ type: 'session_started', workflow_name: 'demo', steps_total: 3, resumed: skipped > 0, steps_skipped: skipped, tokens: { input: 0, output: 0 } }) as const;

describe('what the run view says a step and a resume cost', () => {
  it("counts a step's tool rounds with its answer, so the steps add up to the total", async () => {
    const { ui, apply, store } = setup();
    apply(started(0));
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0' });
    apply({ type: 'conversation_saved', step: '0', attempt: 1, blob: 'b1', messages: 3, usage: { input: 100, output: 20 } });
    apply({ type: 'conversation_saved', step: '0', attempt: 1, blob: 'b2', messages: 4, usage: { input: 0, output: 0 } });
    apply({ type: 'conversation_saved', step: '0', attempt: 1, blob: 'b3', messages: 5, usage: { input: 140, output: 30 } });
    apply({ type: 'step_completed', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0', response: 'r', usage: { input: 200, output: 50 }, duration_ms: 1500 });
    const frame = await ui.waitForFrame((f) => f.includes('1/3 done'));
    expect(frame).toMatch(/✓ +1 researcher 1\.5s · 440 in \/ 100 out/);
    expect(frame).toContain('tokens 440 in / 100 out');
    expect(store.getState().steps[0]!.tokens).toEqual(store.getState().tokens);
  });

  it('says what the skipped steps cost when they ran, in dollars when the model is priced', async () => {
    const price = stepPricer({ runtime: { provider: 'openai', model_id: 'gpt-4o-mini' }, agents: {} }, await loadPriceTable());
    const { ui, apply } = setup(price);
    apply(started(2));
    apply({ type: 'step_skipped', step: '0', agent: 'researcher', usage: { input: 1_000_000, output: 0 } });
    apply({ type: 'step_skipped', step: '1', agent: 'analyst', usage: { input: 0, output: 1_000_000 } });
    // gpt-4o-mini: $0.15 per million input tokens, $0.60 per million output tokens.
    apply({ type: 'step_started', step: '2', agent: 'writer', attempt: 1, idempotency_key: 'k2' });
    apply({ type: 'conversation_saved', step: '2', attempt: 1, blob: 'b', messages: 3, usage: { input: 1_000_000, output: 0 } });
    apply({ type: 'step_completed', step: '2', agent: 'writer', attempt: 1, idempotency_key: 'k2', response: 'r', usage: { input: 0, output: 1_000_000 }, duration_ms: 10 });
    const frame = await ui.waitForFrame((f) => f.includes('resume saved') && f.includes('3/3 done'));
    expect(frame).toContain('this run ≈ $0.75 · resume saved ≈ $0.75, 2 of 3 steps (2,000,000 tokens)');
  });

  it('says it in tokens when the model has no known price, and not at all for steps of old logs', async () => {
    const price = stepPricer({ runtime: { provider: 'openai', model_id: 'my-local-finetune' }, agents: {} }, await loadPriceTable());
    const { ui, apply } = setup(price);
    apply(started(2));
    apply({ type: 'step_skipped', step: '0', agent: 'researcher', usage: { input: 1200, output: 300 } });
    // Written before step_skipped said what the step spent: nothing to count.
    apply({ type: 'step_skipped', step: '1', agent: 'analyst' });
    const frame = await ui.waitForFrame((f) => f.includes('resume saved'));
    expect(frame).toContain('resume saved 1,500 tokens, 1 of 3 steps');
    expect(frame).not.toContain('$');
  });
});
