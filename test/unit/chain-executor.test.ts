import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { executorFor, MemoryJournal, replayed } from '../helpers/engine-harness.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { EngineEvent } from '../../source/engine/events.js';

const spec = (steps: number, scripted = '', budget?: number) => chainSpec({ steps, provider: 'scripted', scripted: scripted ? `  scripted:\n${scripted}` : undefined, budget });

describe('the chain executor', () => {
  it('runs every step in order and reports typed events', async () => {
    const { executor, journal } = executorFor(spec(3), { cwd: tempDir() });
    const summary = await executor.run();
    expect(summary).toMatchObject({ status: 'completed', steps_total: 3, steps_executed: 3, steps_skipped: 0 });
    expect(journal.events.map((e) => e.type)).toEqual([
      'session_started',
      'step_started', 'step_completed',
      'step_started', 'step_completed',
      'step_started', 'step_completed',
      'file_write_intended', 'file_write_applied', 'artifact_written', 'session_completed',
    ]);
    expect(journal.events.map((e) => e.event_id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('feeds each step the previous responses through templates', async () => {
    const { executor, journal } = executorFor(spec(2), { cwd: tempDir() });
    await executor.run();
    const [first, second] = journal.events.filter((e) => e.type === 'step_completed');
    expect(first?.type === 'step_completed' && first.response).toMatch(/^worker answered step 1/);
    // Step 1's input quotes step 0's response, so its scripted answer hashes a different input.
    expect(second?.type === 'step_completed' && second.response).not.toBe(first?.type === 'step_completed' && first.response);
  });

  it('skips the steps a replayed session completed and runs only the rest', async () => {
    const cwd = tempDir();
    const full = executorFor(spec(4), { cwd });
    await full.executor.run();
    const fullArtifact = readFileSync(join(cwd, 'out/report.md'), 'utf8');

    // Cut the log after step 1 completed (as a crash would), then resume from the replay.
    const journal = new MemoryJournal();
    const cut = full.journal.events.findIndex((e) => e.type === 'step_completed' && e.step === '1');
    journal.events.push(...full.journal.events.slice(0, cut + 1));
    const resumed = executorFor(spec(4), { cwd, journal, progress: replayed(journal, 4) });
    const summary = await resumed.executor.run();

    expect(summary).toMatchObject({ status: 'completed', steps_executed: 2, steps_skipped: 2 });
    const started = journal.events.slice(cut + 1).filter((e) => e.type === 'step_started').map((e) => e.type === 'step_started' && e.step);
    expect(started).toEqual(['2', '3']);
    expect(journal.events.slice(cut + 1).filter((e) => e.type === 'step_skipped')).toHaveLength(2);
    expect(readFileSync(join(cwd, 'out/report.md'), 'utf8')).toBe(fullArtifact);
  });

  it('retries an interrupted step with the next attempt number and idempotency key', async () => {
    const journal = new MemoryJournal();
    const first = executorFor(spec(2), { cwd: tempDir(), journal });
    await first.executor.run();
    // Keep the log up to "step 1 started": the process died during step 1.
    const cut = journal.events.findIndex((e) => e.type === 'step_started' && e.step === '1');
    journal.events.splice(cut + 1);
    const resumed = executorFor(spec(2), { cwd: tempDir(), journal, progress: replayed(journal, 2) });
    await resumed.executor.run();
    const retry = journal.events.slice(cut + 1).find((e) => e.type === 'step_started');
    expect(retry).toMatchObject({ step: '1', attempt: 2, idempotency_key: 'test-session:1:2' });
  });

  it('waits out a rate limit for its retry-after and retries the same step, recording each attempt', async () => {
    const { executor, journal } = executorFor(spec(2, '    faults:\n      - { step: 1, kind: rate_limit, retry_after_s: 0.01, times: 2 }'), { cwd: tempDir() });
    const summary = await executor.run();
    expect(summary.status).toBe('completed');
    const attempts = journal.events.filter((e) => e.type === 'resume_attempt');
    expect(attempts).toEqual([
      expect.objectContaining({ step: '1', attempt: 1, max_attempts: 5, stop_reason: 'rate_limit', retry_after_ms: 10, strategy: 'same_session', outcome: { kind: 'delayed', next_attempt_at: expect.any(String) } }),
      expect.objectContaining({ step: '1', attempt: 2, stop_reason: 'rate_limit', retry_after_ms: 10, strategy: 'same_session', outcome: expect.objectContaining({ kind: 'delayed' }) }),
      expect.objectContaining({ step: '1', attempt: 2, outcome: { kind: 'success' } }),
    ]);
    expect(journal.events.filter((e) => e.type === 'step_started' && e.step === '1').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2, 3]);
  });

  it('waits as long as the retry-after says before the retry, measured, not the default backoff', async () => {
    // 1.1 s is longer than any backoff of a first attempt (0.5–1 s), so waiting the backoff instead
    // of the retry-after, or not waiting at all, both fail; anything slower only makes the wait longer.
    const { executor } = executorFor(spec(1, '    faults:\n      - { step: 0, kind: rate_limit, retry_after_s: 1.1, times: 1 }'), { cwd: tempDir() });
    const seen: { type: string; at: number }[] = [];
    executor.subscribe((event) => seen.push({ type: event.type, at: performance.now() }));
    expect((await executor.run()).status).toBe('completed');
    const delayed = seen.findIndex((e) => e.type === 'resume_attempt');
    const retried = seen.findIndex((e, i) => i > delayed && e.type === 'step_started');
    expect(delayed).toBeGreaterThan(0);
    expect(retried).toBeGreaterThan(delayed);
    const waited = seen[retried]!.at - seen[delayed]!.at;
    expect(waited).toBeGreaterThanOrEqual(1100 - 2); // timers may fire a millisecond early
    expect(waited).toBeLessThan(4000);
  });

  it('backs off with jitter when a rate limit names no retry-after', async () => {
    const { executor, journal } = executorFor(spec(1, '    faults:\n      - { step: 0, kind: rate_limit, times: 1 }'), { cwd: tempDir() });
    expect((await executor.run()).status).toBe('completed');
    const attempt = journal.events.find((e) => e.type === 'resume_attempt') as Extract<EngineEvent, { type: 'resume_attempt' }>;
    expect(attempt.retry_after_ms).toBeNull();
    const delay = Date.parse((attempt.outcome as { next_attempt_at: string }).next_attempt_at) - Date.parse(attempt.ts);
    expect(delay).toBeGreaterThanOrEqual(450); // backoff of attempt 1: 0.5–1 s
    expect(delay).toBeLessThanOrEqual(1100);
  });

  it('pauses, resumable, once automatic attempts in a row reach the cap', async () => {
    const { executor, journal } = executorFor(spec(2, '    faults:\n      - { step: 0, kind: rate_limit, retry_after_s: 0, times: 99 }'), { cwd: tempDir(), autoResume: { enabled: true, maxAttempts: 3, onUnknown: 'retry' } });
    const summary = await executor.run();
    expect(summary.status).toBe('paused');
    expect(journal.events.filter((e) => e.type === 'step_started')).toHaveLength(4); // the first try and 3 automatic ones
    expect(journal.events.filter((e) => e.type === 'resume_attempt').at(-1)).toMatchObject({ attempt: 3, outcome: { kind: 'skipped', why: expect.stringContaining('gave up after 3 automatic retries') } });
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'rate_limit', step: '0' });
  });

  it('pauses at the first rate limit when automatic resume is off', async () => {
    const { executor, journal } = executorFor(spec(2, '    faults:\n      - { step: 0, kind: rate_limit, retry_after_s: 0, times: 1 }'), { cwd: tempDir(), autoResume: { enabled: false, maxAttempts: 5, onUnknown: 'retry' } });
    expect((await executor.run()).status).toBe('paused');
    expect(journal.events.filter((e) => e.type === 'step_started')).toHaveLength(1);
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'rate_limit', message: expect.stringContaining('automatic resume is off') });
  });

  it("pauses at once when the step's own input overflows the context: a summary could not make it fit", async () => {
    const { executor, journal } = executorFor(spec(2, '    faults:\n      - { step: 1, kind: context_exhausted }'), { cwd: tempDir() });
    expect((await executor.run()).status).toBe('paused');
    expect(journal.events.filter((e) => e.type === 'conversation_reset')).toHaveLength(0);
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'context_exhausted', message: expect.stringContaining("the step's own input does not fit") });
  });

  it('pauses on a provider error that waiting cannot fix, and fails on it when resume.on_unknown is fail', async () => {
    const paused = executorFor(spec(2, '    faults:\n      - { step: 0, kind: error, message: bad request }'), { cwd: tempDir() });
    expect((await paused.executor.run()).status).toBe('paused');
    expect(paused.journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'provider_error', message: expect.stringContaining('fix the cause, then resume') });
    const failed = executorFor(spec(2, '    faults:\n      - { step: 0, kind: error, message: bad request }'), { cwd: tempDir(), autoResume: { enabled: true, maxAttempts: 5, onUnknown: 'fail' } });
    expect((await failed.executor.run()).status).toBe('failed');
    expect(failed.journal.events.at(-1)).toMatchObject({ type: 'session_failed', reason: 'provider_error' });
  });

  it('pauses with user_exit when cancelled mid-step, keeping completed steps', async () => {
    const { executor, journal } = executorFor(spec(3, '    latency_ms: 30000'), { cwd: tempDir() });
    executor.subscribe((e) => e.type === 'step_started' && executor.cancel());
    const summary = await executor.run();
    expect(summary.status).toBe('paused');
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'user_exit', step: '0' });
  });

  it('enforces the token budget across resumes', async () => {
    // ~107 tokens for step 0, ~205 for step 1: only their sum crosses the budget of 250.
    const text = spec(3, '    response_bytes: 400', 250);
    const journal = new MemoryJournal();
    const first = executorFor(text, { cwd: tempDir(), journal });
    first.executor.subscribe((e) => e.type === 'step_completed' && first.executor.cancel());
    expect((await first.executor.run()).status).toBe('paused');

    const resumed = executorFor(text, { cwd: tempDir(), journal, progress: replayed(journal, 3) });
    const summary = await resumed.executor.run();
    // Reached, it pauses (resumable with the budget raised).
    expect(summary).toMatchObject({ status: 'paused', steps_executed: 1, steps_skipped: 1 });
    expect(summary.tokens.input + summary.tokens.output).toBeGreaterThanOrEqual(250);
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_paused', reason: 'budget_exceeded', message: expect.stringContaining('--set runtime.budgets.max_tokens=500') });
  });

  it('refuses a spec whose step references an unknown variable before any step runs', () => {
    const text = spec(1).replace('research {{ topic }}', 'research {{ subject }}');
    expect(() => executorFor(text, { cwd: tempDir() })).toThrow(/undefined variable 'subject'/);
  });

  it('fails, saying no resume can change it, on an artifact path that breaks a rule (a rendered ..)', async () => {
    // validate and run refuse such a path before the first step; one rendered (from a response) is found only here.
    const text = spec(1).replace('./out/report.md', `"{{ '..' }}/escape.md"`);
    const { executor, journal } = executorFor(text, { cwd: tempDir() });
    const summary = await executor.run();
    expect(summary.status).toBe('failed');
    expect(journal.events.at(-1)).toMatchObject({ type: 'session_failed', reason: 'artifact_error', message: expect.stringMatching(/'\.\.'.*No resume can change/) });
  });
});
