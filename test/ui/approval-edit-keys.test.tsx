import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { createRunStore } from '../../source/state/run-store.js';
import { RunView } from '../../source/ui/run/run-view.js';
import { keys, renderInk } from '../helpers/ink.js';

const backspace = '\u007f';
let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });

/** A run view whose step 2 asks for an approval, its editor open: `type` writes one read of stdin. */
async function editing() {
  const answerApproval = vi.fn();
  const steps = ['researcher', 'approval', 'analyst'].map((label, i) => ({ id: String(i), label, title: `step ${i + 1}`, group: null }));
  const store = createRunStore({ sessionId: 'abcd1234abcd1234', workflowName: 'demo', steps, controls: { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval }, now: () => 0 });
  const ui = renderInk(<RunView store={store} onForceQuit={vi.fn()} />);
  const apply = (body: EngineEventBody) => store.getState().apply(ev(body));
  apply({ type: 'session_started', workflow_name: 'demo', steps_total: 3, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
  apply({ type: 'step_started', step: '1', agent: 'approval', attempt: 1, idempotency_key: 'k1' });
  apply({ type: 'approval_requested', step: '1', attempt: 1, prompt: 'Approve?', context: '', default_response: 'approved' });
  store.getState().askApproval({ step: '1', prompt: 'Approve?', context: '', defaultResponse: 'approved' });
  await ui.waitForFrame((f) => f.includes('a approve (records "approved")'));
  ui.stdin.write('e');
  await ui.waitForFrame((f) => f.includes('response ›') && f.includes('Enter submit · Esc cancel'));
  /** The response row as drawn, without the cursor's cell at its end and the panel's border. */
  const response = () => /response › (.*?) *│?$/m.exec(ui.frame())?.[1];
  return { ui, store, answerApproval, response };
}

describe("the approval editor's Backspace", () => {
  it('deletes twice when two Backspaces arrive in one read, as a key repeat sends them', async () => {
    const { ui, store, answerApproval, response } = await editing();
    ui.stdin.write('abcdef');
    await ui.waitForFrame(() => response() === 'abcdef');
    ui.stdin.write(backspace + backspace);
    await ui.waitForFrame(() => response() !== 'abcdef');
    expect(response()).toBe('abcd');
    expect(store.getState().approvalInput?.text).toBe('abcd');
    ui.stdin.write(keys.enter);
    await ui.waitForFrame(() => answerApproval.mock.calls.length === 1);
    expect(answerApproval).toHaveBeenCalledWith({ decision: 'edited', response: 'abcd' });
  });

  it('deletes a whole emoji, never half of it: the response recorded is the one shown', async () => {
    const { ui, answerApproval, response } = await editing();
    ui.stdin.write('ok 👍😀');
    await ui.waitForFrame(() => response() === 'ok 👍😀');
    ui.stdin.write(backspace);
    await ui.waitForFrame(() => response() !== 'ok 👍😀');
    expect(response()).toBe('ok 👍');
    // A flag is two code points and one grapheme: one Backspace takes it all.
    ui.stdin.write('🇫🇷');
    await ui.waitForFrame(() => response() === 'ok 👍🇫🇷');
    ui.stdin.write(backspace);
    await ui.waitForFrame(() => response() === 'ok 👍');
    ui.stdin.write(keys.enter);
    await ui.waitForFrame(() => answerApproval.mock.calls.length === 1);
    expect(answerApproval).toHaveBeenCalledWith({ decision: 'edited', response: 'ok 👍' });
  });

  it('deletes before the cursor moved back over an emoji, and text typed there goes in there', async () => {
    const { ui, answerApproval, response } = await editing();
    ui.stdin.write('a😀b');
    await ui.waitForFrame(() => response() === 'a😀b');
    ui.stdin.write(keys.left);
    ui.stdin.write(backspace);
    await ui.waitForFrame(() => response() === 'ab');
    ui.stdin.write('😀😀');
    await ui.waitForFrame(() => response() === 'a😀😀b');
    ui.stdin.write(keys.enter);
    await ui.waitForFrame(() => answerApproval.mock.calls.length === 1);
    expect(answerApproval).toHaveBeenCalledWith({ decision: 'edited', response: 'a😀😀b' });
  });

  it('takes a chunk of text, its corrections and Enter as typed', async () => {
    const { ui, answerApproval } = await editing();
    ui.stdin.write(`focus on cots${backspace}${backspace}sts\r`);
    await ui.waitForFrame(() => answerApproval.mock.calls.length === 1);
    expect(answerApproval).toHaveBeenCalledWith({ decision: 'edited', response: 'focus on costs' });
  });
});

describe('a chunk that answers the approval', () => {
  // FIXED: source/ui/run/approval-panel.tsx: the keys after the Enter of a paste went on to the next approval, shown in the same
  // tick — "fix the intro\rand more" recorded the edit, then approved the next one with the "a" of "and".
  it('ends there: the next approval waits, unanswered, for keys typed after it shows', async () => {
    const { ui, store, answerApproval } = await editing();
    answerApproval.mockImplementation(() => store.getState().askApproval({ step: '2', prompt: 'Ship it?', context: '', defaultResponse: 'approved' }));
    ui.stdin.write('fix the intro\rand also, yes, reject it');
    await ui.waitForFrame((f) => f.includes('Ship it?'));
    expect(answerApproval.mock.calls).toEqual([[{ decision: 'edited', response: 'fix the intro' }]]);
    expect(store.getState().approval).toMatchObject({ step: '2' });
  });
});

describe('the approval panel with typed-ahead keys', () => {
  // Was: source/ui/run/approval-panel.tsx read `editing` from React state in the key handler of the last
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
