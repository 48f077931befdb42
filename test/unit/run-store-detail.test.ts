import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { createRunStore } from '../../source/state/run-store.js';

let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });

describe("the run view's step rows", () => {
  it("say what a deciding pattern read of a finished step's answer: the route taken and those not, a score", () => {
    const details: Record<string, string> = { router: 'chose technical (not taken: faq, escalate)' };
    const controls = { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval: vi.fn() };
    const store = createRunStore({ sessionId: 's', workflowName: 'support', pattern: 'routing', steps: [{ id: 'router', label: 'classifier', title: 'router', group: null }], controls, describe: (step) => ({ label: 'x', title: step, group: null, detail: details[step] }) });
    const apply = (body: EngineEventBody) => store.getState().apply(ev(body));
    apply({ type: 'session_started', workflow_name: 'support', steps_total: 1, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
    apply({ type: 'step_started', step: 'router', agent: 'classifier', attempt: 1, idempotency_key: 'k' });
    apply({ type: 'step_completed', step: 'router', agent: 'classifier', attempt: 1, idempotency_key: 'k', response: '{"route":"technical"}', usage: { input: 1, output: 1 }, duration_ms: 5 });
    expect(store.getState().steps.find((step) => step.id === 'router')?.note).toBe('chose technical (not taken: faq, escalate)');
    apply({ type: 'step_started', step: 'technical/0', agent: 'engineer', attempt: 1, idempotency_key: 'k2' });
    apply({ type: 'step_completed', step: 'technical/0', agent: 'engineer', attempt: 1, idempotency_key: 'k2', response: 'answer', usage: { input: 1, output: 1 }, duration_ms: 5 });
    expect(store.getState().steps.find((step) => step.id === 'technical/0')?.note).toBeUndefined();
  });
});
