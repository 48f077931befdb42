import { describe, expect, it } from 'vitest';
import type { RunState, StepView } from '../../source/state/run-store.js';
import { noSaving } from '../../source/state/step-cost.js';
import { rowsBelow, wrappedRows } from '../../source/ui/run/below-lines.js';

const steps: StepView[] = [0, 1, 2, 3, 4, 5].map((n) => ({ id: String(n), index: n, agent: 'worker', title: `step ${n + 1}`, group: null, status: n === 0 ? 'running' : 'pending', attempt: n === 0 ? 1 : 0 }));
const live: Parameters<typeof rowsBelow>[0] = { steps, skipped: 0, forkOf: null, tokens: { input: 0, output: 0 }, pattern: 'chain', dollars: undefined, saving: noSaving(6, undefined), retry: null, phase: 'running', message: undefined, sessionId: 'abcd1234abcd1234', saved: true, artifacts: [], approval: null };
const retry: RunState['retry'] = { step: '0', reason: 'rate limited (HTTP 429)', message: 'slow down', at: 41_000, since: 0, attempt: 2, maxAttempts: 5 };

describe('the rows under a live run’s steps', () => {
  it('wraps a line as Ink does: whole words where they fit, a longer word cut', () => {
    expect(wrappedRows('abc def', 7)).toBe(1);
    expect(wrappedRows('abc def', 6)).toBe(2);
    expect(wrappedRows('x'.repeat(25), 10)).toBe(3);
    expect(wrappedRows('one\ntwo', 80)).toBe(2);
  });

  it('counts a blank row, the totals, a countdown and the pause hint as the rows they take at the width', () => {
    // "0/6 done · 0 skipped (completed earlier) · 6 remaining · tokens 0 in / 0 out · 999m59s": 86 columns.
    expect(rowsBelow(live, 100)).toBe(3);
    expect(rowsBelow(live, 60)).toBe(4);
    expect(rowsBelow({ ...live, retry }, 100)).toBe(4);
    // At 40 columns the totals take three rows and the countdown two.
    expect(rowsBelow({ ...live, retry }, 40)).toBe(7);
    // Stopping, what the stop waits for takes the pause hint's place: "stopping after the running step (Ctrl+C again to quit now)", two rows.
    expect(rowsBelow({ ...live, phase: 'stopping', message: 'stopping after the running step' }, 40)).toBe(1 + 3 + 2);
  });
});
