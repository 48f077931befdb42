import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import type { StepNotice } from '../../source/engine/step-notice.js';
import { secrets } from '../../source/secrets/redactor.js';
import { createRunStore } from '../../source/state/run-store.js';
import { lastRows, streamTailChars, StreamTails } from '../../source/state/step-streams.js';
import { streamRows } from '../../source/ui/run/live-rows.js';
import { RunView } from '../../source/ui/run/run-view.js';
import { renderInk } from '../helpers/ink.js';

let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });

function setup(steps: { id: string; label: string; title: string; group: string | null }[], pattern = 'chain') {
  const controls = { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval: vi.fn() };
  const store = createRunStore({ sessionId: 'abcd1234abcd1234', workflowName: 'demo', pattern, steps, controls });
  const ui = renderInk(<RunView store={store} onForceQuit={vi.fn()} />);
  const apply = (body: EngineEventBody) => store.getState().apply(ev(body));
  const say = (step: string, text: string, attempt = 1) => store.getState().streamed([{ type: 'step_text', step, attempt, text }]);
  apply({ type: 'session_started', workflow_name: 'demo', steps_total: steps.length, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
  return { store, ui, apply, say };
}

const chain = [
  { id: '0', label: 'researcher', title: 'step 1', group: null },
  { id: '1', label: 'writer', title: 'step 2', group: null },
];

describe('the run view while a step streams', () => {
  it('shows the running step’s latest lines and its elapsed time as the text arrives', async () => {
    const { ui, apply, say } = setup(chain);
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0' });
    say('0', 'line one\nline two\nthe third line is still ar');
    let frame = await ui.waitForFrame((f) => f.includes('still ar'));
    expect(frame).toMatch(/researcher \d+\.\ds/);
    expect(frame).toContain('│ line one');
    say('0', 'riving\n4\n5\n6\n7');
    frame = await ui.waitForFrame((f) => f.includes('│ 7'));
    // Six rows at most: the first line has scrolled away.
    expect(frame).not.toContain('line one');
    expect(frame).toContain('│ the third line is still arriving');
  });

  it('shows a tool call as it starts, and drops the text once the step completes', async () => {
    const { ui, apply, store, say } = setup(chain);
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0' });
    say('0', 'Let me read the notes.');
    store.getState().streamed([{ type: 'step_tool_call', step: '0', attempt: 1, name: 'file_read' }]);
    const frame = await ui.waitForFrame((f) => f.includes('→ file_read'));
    expect(frame).toContain('│ Let me read the notes.');
    apply({ type: 'step_completed', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0', response: 'whole', usage: { input: 1, output: 2 }, duration_ms: 10 });
    await ui.waitForFrame((f) => !f.includes('│'));
  });

  it('never shows a key in use, even one that arrived in pieces', async () => {
    const key = 'sk-stream-view-key-9876543210zyxw';
    secrets.register(key);
    const { ui, apply, say } = setup(chain);
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0' });
    say('0', `the key is ${key.slice(0, 12)}`);
    say('0', `${key.slice(12)} and more`);
    const frame = await ui.waitForFrame((f) => f.includes('and more'));
    expect(frame).not.toContain('9876543210');
    expect(frame).toContain('[REDACTED]');
  });

  it('drops what a cut attempt streamed when the step starts again, and ignores late pieces of it', async () => {
    const { ui, apply, say } = setup(chain);
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k1' });
    say('0', 'half an answ');
    await ui.waitForFrame((f) => f.includes('half an answ'));
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 2, idempotency_key: 'k2' });
    say('0', 'late piece', 1);
    say('0', 'the whole answer', 2);
    const frame = await ui.waitForFrame((f) => f.includes('the whole answer'));
    expect(frame).not.toContain('half an answ');
    expect(frame).not.toContain('late piece');
  });

  it('with branches running at once, shows the stream of the one that spoke last, named', async () => {
    const branches = [
      { id: 'web/0', label: 'searcher', title: 'branch web step 1', group: 'web' },
      { id: 'docs/0', label: 'reader', title: 'branch docs step 1', group: 'docs' },
    ];
    const { ui, apply, say } = setup(branches, 'parallel');
    apply({ type: 'step_started', step: 'web/0', agent: 'searcher', attempt: 1, idempotency_key: 'a' });
    apply({ type: 'step_started', step: 'docs/0', agent: 'reader', attempt: 1, idempotency_key: 'b' });
    say('web/0', 'from the web');
    say('docs/0', 'from the docs');
    const frame = await ui.waitForFrame((f) => f.includes('from the docs'));
    expect(frame).toContain('▸ branch docs step 1');
    expect(frame).not.toContain('from the web');
  });
});

describe('the rows of streamed text', () => {
  it('breaks long lines at the width and keeps the newest rows', () => {
    expect(lastRows('abcdefghij\nshort\n\n', 4, 3)).toEqual(['ij', 'shor', 't']);
  });

  it('breaks lines of wide characters by the columns they take, never splitting a character', () => {
    // Each of these takes two columns: four fit in 8, the fifth starts the next row.
    expect(lastRows('日本語の文字', 8, 2)).toEqual(['日本語の', '文字']);
    // An emoji built of several code points stays whole; an accent stays on its letter.
    expect(lastRows('ab👩‍💻cdéf', 3, 4)).toEqual(['ab', '👩‍💻c', 'déf']);
  });

  it('removes terminal control sequences a model may send', () => {
    expect(lastRows('red \u001b[31mtext\u0007', 40, 1)).toEqual(['red text']);
  });

  it(`keeps the last ${streamTailChars} characters of a long answer, from its first whole line, however it arrived`, () => {
    // Lines of varied length (a secret cut in half at the start of the kept text would show a piece of it).
    const answer = Array.from({ length: 600 }, (_, i) => `line ${i} ${'x'.repeat((i * 37) % 90)}\n`).join('');
    for (const pieceLength of [1, 7, 100, 5000]) {
      const tails = new StreamTails();
      let sent = 0;
      for (let at = 0; at < answer.length; at += pieceLength) {
        tails.add([{ type: 'step_text', step: '0', attempt: 1, text: answer.slice(at, at + pieceLength) }], () => 1);
        sent = Math.min(answer.length, at + pieceLength);
        // Checked at every length around the cut and at the end; checking each piece would take long.
        if (Math.abs(sent - streamTailChars) >= 2 * pieceLength && Math.abs(sent - 2 * streamTailChars) >= 2 * pieceLength && sent !== answer.length) continue;
        const whole = answer.slice(0, sent);
        const kept = whole.slice(-streamTailChars);
        expect(tails.shown('0')).toBe(whole.length > streamTailChars ? kept.slice(kept.indexOf('\n') + 1) : whole);
      }
      expect(sent).toBe(answer.length);
    }
  });

  it('is built from notices of running attempts only', () => {
    const store = createRunStore({ sessionId: 's', workflowName: 'w', steps: chain, controls: { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval: vi.fn() } });
    const notice: StepNotice = { type: 'step_text', step: '0', attempt: 1, text: 'too early' };
    store.getState().streamed([notice]);
    expect(store.getState().streams).toEqual({});
  });
});

describe('the stream tail on a narrow terminal', () => {
  it(`never shows more than ${streamRows} rows of streamed text, however narrow the terminal (rows too wide for it are cut, not wrapped)`, async () => {
    const steps = [{ id: '0', label: 'researcher', title: 'step 1', group: null }];
    const controls = { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval: vi.fn() };
    const store = createRunStore({ sessionId: 'abcd1234abcd1234', workflowName: 'demo', pattern: 'chain', steps, controls });
    const ui = renderInk(<RunView store={store} onForceQuit={vi.fn()} />);
    const apply = (body: EngineEventBody) => store.getState().apply(ev(body));
    apply({ type: 'session_started', workflow_name: 'demo', steps_total: 1, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
    apply({ type: 'step_started', step: '0', agent: 'researcher', attempt: 1, idempotency_key: 'k0' });
    store.getState().streamed([{ type: 'step_text', step: '0', attempt: 1, text: `${'b'.repeat(200)}Z` }]);
    await ui.waitForFrame((f) => f.includes('Z'));
    // A terminal 16 columns wide (a split pane): the tail's box has 8 columns inside its gutter, but
    // lastRows is given max(10, columns - indent - 3) = 10, and the one Text of rows wraps each.
    Object.defineProperty(ui.stdout, 'columns', { value: 16 });
    ui.stdout.emit('resize');
    // Ink redraws the tree it has at the new width first; the view's rows follow on its next render.
    const tailOf = (f: string) => f.split('\n').filter((line) => line.includes('│'));
    // Settled: every row inside the 16 columns and no more rows than the tail has (a frame the size
    // of the old rows wrapped has both long-row-free lines and too many of them; one before the resize, long rows).
    const settled = (f: string) => f.includes('Z') && tailOf(f).every((line) => line.length <= 16) && tailOf(f).length <= streamRows;
    const frame = await ui.waitForFrame(settled);
    expect(tailOf(frame).length).toBeLessThanOrEqual(streamRows);
  });
});
