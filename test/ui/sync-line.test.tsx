import { describe, expect, it, vi } from 'vitest';
import { createRunStore } from '../../source/state/run-store.js';
import { syncLine } from '../../source/state/sync-line.js';
import { topLines } from '../../source/ui/browser/browser-lines.js';
import { RunView } from '../../source/ui/run/run-view.js';
import { renderInk } from '../helpers/ink.js';

describe('the sync line', () => {
  it('says how many events wait, when the last attempt was, when the next comes and why', () => {
    const now = Date.parse('2030-01-01T00:00:40Z');
    const line = syncLine({ state: 'degraded', pending: 5, lastAttemptAt: now - 10_000, nextRetryAt: now + 30_000, reason: 'connection refused' }, now);
    expect(line).toBe('sync: DEGRADED — 5 events pending · last attempt 10 s ago · next retry in 30 s · connection refused');
    expect(syncLine({ state: 'degraded', pending: 1, lastAttemptAt: now, nextRetryAt: now - 1 }, now)).toBe('sync: DEGRADED — 1 event pending · last attempt 0 s ago · retrying now');
    expect(syncLine({ state: 'up_to_date', pending: 0 }, now)).toBeUndefined();
    expect(syncLine(undefined, now)).toBeUndefined();
  });

  it('shows in the run view while the push is degraded, and goes once the store answers', async () => {
    const store = createRunStore({ sessionId: 'abcd1234abcd1234', workflowName: 'demo', steps: [{ id: '0', label: 'worker', title: 'step 1', group: null }], controls: { cancel: vi.fn(), retryNow: vi.fn(), abandonRetry: vi.fn(), answerApproval: vi.fn() } });
    const ui = renderInk(<RunView store={store} onForceQuit={vi.fn()} />);
    store.getState().setSync({ state: 'degraded', pending: 7, lastAttemptAt: Date.now(), nextRetryAt: Date.now() + 30_000, reason: 'connection refused' });
    await ui.waitForFrame((f) => /sync: DEGRADED — 7 events pending · last attempt \d s ago · next retry in (29|30) s · connection refused/.test(f));
    store.getState().setSync({ state: 'up_to_date', pending: 0, lastAttemptAt: Date.now() });
    await ui.waitForFrame((f) => !f.includes('sync:'));
    ui.unmount();
  });

  it("shows above the browser's table while the home's push is degraded", () => {
    const lines = topLines({ query: '', searching: false, message: null, sync: 'sync: DEGRADED — 3 events pending · connection refused' }, 80, 20);
    expect(lines.map((line) => line.map((cell) => cell.text).join(''))).toEqual(['sync: DEGRADED — 3 events pending · connection refused']);
  });
});
