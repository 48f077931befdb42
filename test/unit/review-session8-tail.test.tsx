import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { createRunStore } from '../../source/state/run-store.js';
import { RunView } from '../../source/ui/run/run-view.js';
import { streamRows } from '../../source/ui/run/live-rows.js';
import { renderInk } from '../helpers/ink.js';

/**
 * Hostile review of session 8, the run view's side (the stream tail as one Text node, rows cut by
 * columns): each test is a defect it found, red before its fix.
 */

let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });

describe('review: the stream tail on a narrow terminal', () => {
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
