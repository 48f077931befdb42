import { describe, expect, it } from 'vitest';
import { commandUsage } from '../../source/command-help.js';
import { plainLine } from '../../source/commands/plain-progress.js';
import { headline, labelHue, labelOrder, sessionStatuses, statusWords } from '../../source/session/status-words.js';
import { statusLabel, tallyLabels } from '../../source/state/browser-rows.js';
import { sessionSummarySchema } from '../../source/store/session-record.js';

describe('the status vocabulary', () => {
  it('is the one list the session files accept', () => {
    const status = sessionSummarySchema.shape.status;
    for (const name of sessionStatuses) expect(status.safeParse(name).success).toBe(true);
    expect(status.safeParse('to approve').success).toBe(false);
    expect(status.options).toEqual([...sessionStatuses]);
  });

  it('is the list --status documents', () => {
    expect(commandUsage('sessions', 'list')).toContain(`--status S           ${sessionStatuses.join(' | ')}`);
  });

  it('words and colours a status the same in the browser, the plain lines and the run view', () => {
    expect(statusLabel({ status: 'awaiting_approval', damaged: null, interrupted: false })).toBe('to approve');
    expect(labelHue(statusLabel({ status: 'awaiting_approval', damaged: null, interrupted: false }))).toBe(statusWords.awaiting_approval.hue);
    expect(labelHue(statusLabel({ status: 'running', damaged: null, interrupted: true }))).toBe('yellow');
    expect(plainLine({ type: 'session_paused', reason: 'user_exit', message: 'stopped by the user', step: '0' }, 1, (id) => `step ${Number(id) + 1}/1 a`)).toBe(`${headline('paused')}: stopped by the user`);
    expect(plainLine({ type: 'session_failed', reason: 'provider_error', message: 'boom', step: '0' }, 1, (id) => `step ${Number(id) + 1}/1 a`)).toBe('✗ failed: boom');
  });

  it('counts every label in the header, in one order', () => {
    expect(Object.keys(tallyLabels([...labelOrder].reverse().map((label) => [label, 1] as const)))).toEqual(labelOrder);
    for (const label of labelOrder) expect(labelHue(label)).toBeDefined();
  });
});
