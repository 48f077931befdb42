import { describe, expect, it } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { maxHeldChars, StreamPrinter } from '../../source/commands/stream-printer.js';
import { secrets } from '../../source/secrets/redactor.js';
import { leakedPieces } from '../helpers/header-echo.js';

let id = 0;
const ev = (body: EngineEventBody): EngineEvent => ({ ...body, event_id: ++id, ts: new Date(0).toISOString() });
const completed = (step: string, attempt = 1) => ev({ type: 'step_completed', step, agent: 'a', attempt, idempotency_key: 'k', response: '', usage: { input: 0, output: 0 }, duration_ms: 0 });

function printer() {
  const writes: string[] = [];
  const p = new StreamPrinter((text) => writes.push(text));
  const say = (step: string, text: string, attempt = 1) => p.notice({ type: 'step_text', step, attempt, text });
  return { p, writes, say, out: () => writes.join('') };
}

describe('--stream’s printer', () => {
  it('writes a header line above each step’s answer, again for a retry, and never between steps that wait their turn', () => {
    const writes: string[] = [];
    const p = new StreamPrinter((text) => writes.push(text), (step, attempt) => `── step ${step}${attempt > 1 ? ` (attempt ${attempt})` : ''} ──`);
    p.notice({ type: 'step_text', step: 'a', attempt: 1, text: 'A one\n' });
    p.notice({ type: 'step_text', step: 'b', attempt: 1, text: 'B one\n' });
    p.event(completed('a'));
    p.event(completed('b'));
    p.event(ev({ type: 'step_started', step: 'c', agent: 'a', attempt: 1, idempotency_key: 'k' }));
    p.notice({ type: 'step_text', step: 'c', attempt: 1, text: 'cut sh' });
    p.event(ev({ type: 'step_started', step: 'c', agent: 'a', attempt: 2, idempotency_key: 'k2' }));
    p.notice({ type: 'step_text', step: 'c', attempt: 2, text: 'C whole\n' });
    p.event(completed('c', 2));
    expect(writes.join('')).toBe('── step a ──\nA one\n── step b ──\nB one\n── step c ──\ncut sh\n── step c (attempt 2) ──\nC whole\n');
  });

  it('prints an answer that arrived whole, nothing of it streamed, as its step completes: in its turn, under its header; an approval is not printed', () => {
    const writes: string[] = [];
    const p = new StreamPrinter((text) => writes.push(text), (step) => `── step ${step} ──`);
    const whole = (step: string, response: string, agent = 'a') => ev({ type: 'step_completed', step, agent, attempt: 1, idempotency_key: 'k', response, usage: { input: 0, output: 0 }, duration_ms: 0 });
    p.event(whole('0', 'a whole JSON answer'));
    expect(writes.join('')).toBe('── step 0 ──\na whole JSON answer\n');
    p.event(whole('1', 'approved', 'approval'));
    // While another step speaks, a whole answer waits its turn.
    p.notice({ type: 'step_text', step: '2', attempt: 1, text: 'streaming ' });
    p.event(whole('3', 'whole meanwhile'));
    p.notice({ type: 'step_text', step: '2', attempt: 1, text: 'on\n' });
    p.event(completed('2'));
    expect(writes.join('')).toBe('── step 0 ──\na whole JSON answer\n── step 2 ──\nstreaming on\n── step 3 ──\nwhole meanwhile\n');
  });

  it('writes whole lines as they arrive and ends the last one', () => {
    const { p, writes, say, out } = printer();
    say('0', 'first li');
    expect(writes).toEqual([]);
    say('0', 'ne\nsecond');
    expect(out()).toBe('first line\n');
    p.event(completed('0'));
    expect(out()).toBe('first line\nsecond\n');
  });

  it('writes a long line up to a space, never between a credential’s name and its value', () => {
    const { say, out } = printer();
    say('0', `${'word '.repeat(14)}Authorization: Bearer abcdefghijklmnop0123456789`);
    expect(out()).toBe('word '.repeat(14));
    say('0', ' done\n');
    expect(out()).toBe(`${'word '.repeat(14)}Authorization: Bearer [REDACTED] done\n`);
  });

  it('never interleaves steps running at once: the second waits for the first, then follows', () => {
    const { p, say, out } = printer();
    say('a', 'A one\n');
    say('b', 'B one\n');
    say('a', 'A two\n');
    say('b', 'B two\n');
    expect(out()).toBe('A one\nA two\n');
    p.event(completed('b'));
    p.event(completed('a'));
    expect(out()).toBe('A one\nA two\nB one\nB two\n');
  });

  it('drops what a waiting attempt said once it is cut, and ends the live one’s line when it is cut', () => {
    const { p, say, out } = printer();
    say('a', 'A half');
    say('b', 'B never shown\n');
    p.event(ev({ type: 'step_failed', step: 'b', attempt: 1, reason: 'provider_error', message: 'cut', retryable: true }));
    p.event(ev({ type: 'step_started', step: 'a', agent: 'x', attempt: 2, idempotency_key: 'k' }));
    say('a', 'A whole\n', 2);
    p.event(completed('a', 2));
    expect(out()).toBe('A half\nA whole\n');
  });

  it('writes an answer of 64 KiB pieces without a space or a break as it arrives, holding at most a few KiB', () => {
    let written = 0;
    const p = new StreamPrinter((text) => (written += text.length));
    const piece = 'x'.repeat(64 * 1024);
    const started = performance.now();
    for (let i = 1; i <= 1024; i++) {
      p.notice({ type: 'step_text', step: '0', attempt: 1, text: piece });
      expect(i * piece.length - written).toBeLessThanOrEqual(maxHeldChars);
    }
    // 64 MiB, the most an answer can be, in linear time (the held line was scanned again at every piece).
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('still redacts a key that falls across the place a spaceless line is cut', () => {
    const key = 'Zq8Wm3Kd7Pv2Lx9Rt4Hn6Bc1';
    secrets.register(key);
    for (let at = maxHeldChars - 600; at < maxHeldChars + 40; at += 7) {
      const { p, say, out } = printer();
      const text = `${'y'.repeat(at)}${key}${'y'.repeat(2000)}`;
      for (let i = 0; i < text.length; i += 1000) say('0', text.slice(i, i + 1000));
      p.event(completed('0'));
      expect(leakedPieces(out(), key), `key at ${at}`).toEqual([]);
      expect(out()).toContain('[REDACTED]');
    }
  });
});
