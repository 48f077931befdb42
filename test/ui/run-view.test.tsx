import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { createRunStore } from '../../source/state/run-store.js';
import { RunView } from '../../source/ui/run/run-view.js';
import { keys, renderInk } from '../helpers/ink.js';

let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });
const usage = { input: 1200, output: 3400 };

function setup(agents = ['researcher', 'analyst', 'writer'], saved = true) {
  const cancel = vi.fn();
  const retryNow = vi.fn();
  const abandonRetry = vi.fn();
  const answerApproval = vi.fn();
  const steps = agents.map((label, i) => ({ id: String(i), label, title: `step ${i + 1}`, group: null }));
  const store = createRunStore({ sessionId: 'abcd1234abcd1234', workflowName: 'demo', steps, controls: { cancel, retryNow, abandonRetry, answerApproval }, now: () => 0, saved });
  const onForceQuit = vi.fn();
  const ui = renderInk(<RunView store={store} onForceQuit={onForceQuit} />);
  const apply = (body: EngineEventBody) => store.getState().apply(ev(body));
  /** The executor names each step completed earlier right after session_started. */
  const skip = (count: number, names: string[] = []) => {
    for (let i = 0; i < count; i++) apply({ type: 'step_skipped', step: String(i), agent: names[i] ?? agents[i] ?? 'worker' });
  };
  return { store, ui, apply, skip, cancel, retryNow, abandonRetry, answerApproval, onForceQuit };
}

const started = (skipped = 0, total = 3) =>
  ({ type: 'session_started', workflow_name: 'demo', steps_total: total, resumed: skipped > 0, steps_skipped: skipped, tokens: { input: 0, output: 0 } }) as const;

describe('the run view', () => {
  it('shows the session id, done, running and pending steps, and the totals', async () => {
    const { ui, apply } = setup();
    apply(started());
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0' });
    apply({ type: 'step_completed', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0', response: 'r', usage, duration_ms: 1500 });
    apply({ type: 'step_started', step: '1', agent: 'analyst', attempt: 1, idempotency_key: 'k1' });
    const frame = await ui.waitForFrame((f) => f.includes('1/3 done'));
    expect(frame).toContain('acode demo · 3 steps · session abcd1234abcd1234');
    expect(frame).toMatch(/✓ +1 researcher 1\.5s · 1\.2k in \/ 3\.4k out/);
    expect(frame).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] +2 analyst/);
    expect(frame).toMatch(/○ +3 writer/);
    expect(frame).toContain('1/3 done · 0 skipped (completed earlier) · 2 remaining · tokens 1.2k in / 3.4k out');
    expect(frame).toContain('Ctrl+C pause');
  });

  it("marks a step whose answer stopped at the model's output limit", async () => {
    const { ui, apply } = setup();
    apply(started());
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0' });
    apply({ type: 'step_completed', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0', response: 'r', usage, duration_ms: 1500, cut: true });
    apply({ type: 'step_started', step: '1', agent: 'analyst', attempt: 1, idempotency_key: 'k1' });
    apply({ type: 'step_completed', step: '1', agent: 'analyst', attempt: 1, idempotency_key: 'k1', response: 'r', usage, duration_ms: 1500 });
    const frame = await ui.waitForFrame((f) => f.includes('2/3 done'));
    expect(frame).toMatch(/✓ +1 researcher 1\.5s · 1\.2k in \/ 3\.4k out +answer cut at max_tokens/);
    expect(frame).toMatch(/✓ +2 analyst 1\.5s · 1\.2k in \/ 3\.4k out *$/m);
  });

  it('shows an approval step\'s time and no token counts: a person answered it', async () => {
    const { ui, apply } = setup(['researcher', 'approval', 'writer']);
    apply(started());
    apply({ type: 'step_started', step: '1', agent: 'approval', attempt: 1, idempotency_key: 'k1' });
    apply({ type: 'step_completed', step: '1', agent: 'approval', attempt: 1, idempotency_key: 'k1', response: 'approved', usage: { input: 0, output: 0 }, duration_ms: 2500 });
    const frame = await ui.waitForFrame((f) => f.includes('1/3 done'));
    expect(frame).toMatch(/✓ +2 approval 2\.5s *$/m);
  });

  it("says a fork is a fork of its source, not a resume", async () => {
    const controls = { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval: vi.fn() };
    const steps = ['researcher', 'writer'].map((label, i) => ({ id: String(i), label, title: `step ${i + 1}`, group: null }));
    const store = createRunStore({ sessionId: 'ffff1234abcd1234', workflowName: 'demo', steps, controls, now: () => 0, forkOf: '5f5637338d37b7e9' });
    const ui = renderInk(<RunView store={store} onForceQuit={vi.fn()} />);
    store.getState().apply(ev(started(1, 2)));
    store.getState().apply(ev({ type: 'step_skipped', step: '0', agent: 'researcher' }));
    let frame = await ui.waitForFrame((f) => f.includes('1 reused'));
    expect(frame).toContain('session ffff1234abcd1234');
    expect(frame).toContain('(fork of 5f5637338d37b7e9)');
    expect(frame).not.toContain('(resumed)');
    // A fork reuses its source's steps, it skips none: the row and the totals say so.
    expect(frame).toMatch(/↷ +1 researcher reused/);
    expect(frame).toContain('1/2 done · 1 reused from 5f5637338d37b7e9 · 1 remaining');
    expect(frame).not.toMatch(/skipped|completed earlier/);
    // One taken during the run (fork --spec, its input unchanged) is counted with them.
    store.getState().apply(ev({ type: 'step_reused', step: '1', agent: 'writer', response: 'r', from_session: '5f5637338d37b7e9', input_unchanged: true }));
    frame = await ui.waitForFrame((f) => f.includes('2/2 done'));
    expect(frame).toMatch(/↷ +2 writer reused/);
    expect(frame).toContain('2/2 done · 2 reused from 5f5637338d37b7e9 · 0 remaining');
  });

  it('marks steps completed before the crash as skipped and counts them', async () => {
    const { ui, apply, skip } = setup();
    apply({ ...started(2), tokens: { input: 500, output: 700 } });
    skip(2, ['researcher', 'analyst']);
    apply({ type: 'step_started', step: '2', agent: 'writer', attempt: 2, idempotency_key: 'k2' });
    const frame = await ui.waitForFrame((f) => f.includes('attempt 2'));
    expect(frame).toContain('(resumed)');
    expect(frame).toMatch(/↷ +1 researcher completed earlier/);
    expect(frame).toMatch(/↷ +2 analyst completed earlier/);
    expect(frame).toContain('2/3 done · 2 skipped (completed earlier) · 1 remaining · tokens 500 in / 700 out');
  });

  it('collapses many skipped steps into one line', async () => {
    const { ui, apply, skip } = setup(Array.from({ length: 100 }, (_, i) => `agent${i}`));
    apply(started(98, 100));
    skip(98);
    const frame = await ui.waitForFrame((f) => f.includes('98 skipped'));
    expect(frame).toContain('↷ steps 1–98 skipped (completed earlier)');
    expect(frame).not.toContain('agent5 ');
  });

  it('pauses on Ctrl+C and quits at once on a second Ctrl+C', async () => {
    const { ui, apply, cancel, onForceQuit } = setup();
    apply(started());
    await ui.waitForFrame((f) => f.includes('Ctrl+C pause'));
    ui.stdin.write(keys.ctrlC);
    await ui.waitForFrame((f) => f.includes('flushing the checkpoint'));
    expect(cancel).toHaveBeenCalledTimes(1);
    ui.stdin.write(keys.ctrlC);
    expect(onForceQuit).toHaveBeenCalledTimes(1);
  });

  it('shows the exact resume command once paused', async () => {
    const { ui, apply } = setup();
    apply(started());
    apply({ type: 'session_paused', reason: 'user_exit', message: 'stopped by the user', step: '0' });
    const frame = await ui.waitForFrame((f) => f.includes('paused'));
    expect(frame).toContain('⏸ paused: stopped by the user');
    expect(frame).toContain('Resume with: acode resume abcd1234abcd1234');
  });

  it('says a run kept without a session (--no-save-session) has nothing to resume, instead of a resume command that fails', async () => {
    const { ui, apply } = setup(undefined, false);
    apply(started());
    apply({ type: 'session_paused', reason: 'user_exit', message: 'stopped by the user', step: '0' });
    const frame = await ui.waitForFrame((f) => f.includes('paused'));
    expect(frame).toContain('nothing to resume: the run kept no session (--no-save-session)');
    expect(frame).not.toContain('acode resume');
  });

  it('lists written artifacts on completion', async () => {
    const { ui, apply } = setup(['writer']);
    apply(started(0, 1));
    apply({ type: 'step_started', step: '0', agent: 'writer', attempt: 1, idempotency_key: 'k' });
    apply({ type: 'step_completed', step: '0', agent: 'writer', attempt: 1, idempotency_key: 'k', response: 'r', usage, duration_ms: 10 });
    apply({ type: 'artifact_written', path: '/tmp/out/report.md', bytes: 3, sha256: 'x' });
    apply({ type: 'session_completed', tokens: usage });
    const frame = await ui.waitForFrame((f) => f.includes('✓ completed'));
    expect(frame).toContain('wrote /tmp/out/report.md');
  });

  it('counts down to an automatic retry, and r retries now while a aborts', async () => {
    const { ui, apply, retryNow, abandonRetry } = setup();
    apply(started());
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0' });
    const next = new Date(Date.now() + 41_000).toISOString();
    apply({ type: 'resume_attempt', step: '0', attempt: 2, max_attempts: 5, stop_reason: 'rate_limit', retry_after_ms: 41_000, strategy: 'same_session', message: 'HTTP 429 from http://127.0.0.1/v1: slow down', detail: 'HTTP 429', outcome: { kind: 'delayed', next_attempt_at: next } });
    let frame = await ui.waitForFrame((f) => f.includes('retry 2/5 in'));
    expect(frame).toMatch(/rate limited \(HTTP 429\) — retry 2\/5 in 41 s; r retry now · a abort/);
    // It counts down.
    frame = await ui.waitForFrame((f) => /retry 2\/5 in (40|39) s/.test(f));
    ui.stdin.write('r');
    expect(retryNow).toHaveBeenCalledTimes(1);
    ui.stdin.write('a');
    expect(abandonRetry).toHaveBeenCalledTimes(1);
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 3, idempotency_key: 'k0b', retry: { n: 2, max: 5 } });
    frame = await ui.waitForFrame((f) => !f.includes('retry 2/5 in'));
    expect(frame).toMatch(/researcher 0\.0s retry 2\/5/); // the step row numbers it as the countdown did, not "attempt 3"
    ui.stdin.write('r');
    expect(retryNow).toHaveBeenCalledTimes(1); // no countdown, no retry
  });

  /** A view whose step 2 (an approval step) asks this person `prompt` over `context`; `ask` asks it again once answered. */
  function asking(prompt: string, context: string) {
    const view = setup();
    view.apply(started());
    view.apply({ type: 'step_started', step: '1', agent: 'approval', attempt: 1, idempotency_key: 'k1' });
    view.apply({ type: 'approval_requested', step: '1', attempt: 1, prompt, context, default_response: 'approved' });
    const ask = () => view.store.getState().askApproval({ step: '1', prompt, context, defaultResponse: 'approved' });
    ask();
    return { ...view, ask };
  }

  it('asks for an approval: a approves, r rejects once confirmed, e takes a typed response', async () => {
    const { ui, answerApproval, ask } = asking('Approve the research?', '### Research\nfindings');
    const frame = await ui.waitForFrame((f) => f.includes('approval needed · step 2'));
    expect(frame).toContain('Approve the research?');
    expect(frame).toContain('findings');
    expect(frame).toContain('a approve (records "approved") · e edit a response · r reject');
    ui.stdin.write('a');
    expect(answerApproval).toHaveBeenLastCalledWith({ decision: 'approved' });
    await ui.waitForFrame((f) => !f.includes('approval needed'));

    ask();
    await ui.waitForFrame((f) => f.includes('approval needed'));
    ui.stdin.write('r');
    await ui.waitForFrame((f) => f.includes('Reject cancels the session. Reject? y reject · n keep waiting'));
    expect(answerApproval).toHaveBeenCalledTimes(1);
    ui.stdin.write(keys.enter); // Enter does not reject: it keeps waiting
    await ui.waitForFrame((f) => f.includes('a approve (records "approved")'));
    expect(answerApproval).toHaveBeenCalledTimes(1);
    ui.stdin.write('r');
    await ui.waitForFrame((f) => f.includes('Reject cancels the session'));
    ui.stdin.write('y');
    expect(answerApproval).toHaveBeenLastCalledWith({ decision: 'rejected' });

    ask();
    await ui.waitForFrame((f) => f.includes('approval needed'));
    ui.stdin.write('e');
    await ui.waitForFrame((f) => f.includes('response ›') && f.includes('Enter submit · Esc cancel'));
    await new Promise((resolve) => setImmediate(resolve)); // the text field subscribes to input in an effect, after its first frame
    ui.stdin.write('focus on costs');
    await ui.waitForFrame((f) => f.includes('response › focus on costs'));
    ui.stdin.write('\r');
    await ui.waitForFrame(() => answerApproval.mock.calls.length === 3);
    expect(answerApproval).toHaveBeenLastCalledWith({ decision: 'edited', response: 'focus on costs' });
  });

  it('takes keys that arrive in one chunk one at a time: e and text edit, r and a ask before anything', async () => {
    const { ui, answerApproval, ask } = asking('Approve?', '');
    await ui.waitForFrame((f) => f.includes('a approve (records "approved")'));
    // Typed fast, or while the app was busy: the edit key and the response's start in one read. It approved with the default.
    ui.stdin.write('efocus');
    await ui.waitForFrame((f) => f.includes('response › focus'));
    expect(answerApproval).not.toHaveBeenCalled();
    await new Promise((resolve) => setImmediate(resolve)); // the text field subscribes to input in an effect, after its first frame
    ui.stdin.write('\r');
    await ui.waitForFrame(() => answerApproval.mock.calls.length === 1);
    expect(answerApproval).toHaveBeenLastCalledWith({ decision: 'edited', response: 'focus' });

    // Reject then a stray key: the question is asked, nothing answered.
    ask();
    await ui.waitForFrame((f) => f.includes('a approve (records "approved")'));
    ui.stdin.write('ra');
    await ui.waitForFrame((f) => f.includes('Reject cancels the session'));
    expect(answerApproval).toHaveBeenCalledTimes(1);
    // All of it at once, Enter too: the response is recorded.
    ui.stdin.write('n');
    await ui.waitForFrame((f) => f.includes('a approve (records "approved")'));
    ui.stdin.write('eall at once\r');
    await ui.waitForFrame(() => answerApproval.mock.calls.length === 2);
    expect(answerApproval).toHaveBeenLastCalledWith({ decision: 'edited', response: 'all at once' });
  });
});
