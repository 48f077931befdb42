import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { createRunStore } from '../../source/state/run-store.js';
import { RunView } from '../../source/ui/run/run-view.js';
import { renderInk } from '../helpers/ink.js';

/** Review of the see-and-steer slices (#14) by a hostile user: each test is a defect it found, red before its fix. */
let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });

describe('hostile review of #14: the approval panel with typed-ahead keys', () => {
  // Was a defect (fixed): source/ui/run/approval-panel.tsx read `editing` from React state in the key handler of the last
  // render; it is a ref now, as the reject question's is, and text typed before the editor shows starts the response. So 'e' and then the response typed at once ('a…' before
  // the next render) approves with the default response instead of opening the editor — reproduced in a real terminal too
  // (tmux send-keys e; send-keys a: the session's log says decision 'approved').
  it("e then a typed before the next frame edits a response, never approves", async () => {
    const answerApproval = vi.fn();
    const steps = ['researcher', 'approval', 'analyst'].map((label, i) => ({ id: String(i), label, title: `step ${i + 1}`, group: null }));
    const store = createRunStore({ sessionId: 'abcd1234abcd1234', workflowName: 'demo', steps, controls: { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval }, now: () => 0 });
    const ui = renderInk(<RunView store={store} onForceQuit={vi.fn()} />);
    const apply = (body: EngineEventBody) => store.getState().apply(ev(body));
    apply({ type: 'session_started', workflow_name: 'demo', steps_total: 3, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
    apply({ type: 'step_started', step: '1', agent: 'approval', attempt: 1, idempotency_key: 'k1' });
    apply({ type: 'approval_requested', step: '1', attempt: 1, prompt: 'Approve the research?', context: 'findings', default_response: 'approved' });
    store.getState().askApproval({ step: '1', prompt: 'Approve the research?', context: 'findings', defaultResponse: 'approved' });
    await ui.waitForFrame((f) => f.includes('a approve (records "approved") · e edit a response · r reject'));
    ui.stdin.write('e');
    ui.stdin.write('a');
    const frame = await ui.waitForFrame((f) => f.includes('response ›') || !f.includes('approval needed'));
    expect(answerApproval).not.toHaveBeenCalled();
    expect(frame).toContain('response › a');
  });
});
