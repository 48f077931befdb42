import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialProgress } from '../../source/engine/session-progress.js';
import { peekSession } from '../../source/store/session-peek.js';
import { tempDir } from '../helpers/temp-dir.js';

const checkpoint = { status: 'running', steps_done: 1, steps_total: 2, stop_reason: null, error: null, last_response_preview: '', last_event_id: 3, in_progress: { '1': { step: '1', attempt: 1, idempotency_key: 'k' } }, awaiting: [] };
const chainSpec = { pattern: { type: 'chain', config: { steps: [{ agent: 'w', input: 'a' }, { type: 'hitl', prompt: 'ok?' }] } } };

function session(spec: unknown, log: string) {
  const dir = join(tempDir(), 's');
  mkdirSync(dir);
  writeFileSync(join(dir, 'session.json'), JSON.stringify({ checkpoint }));
  writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
  writeFileSync(join(dir, 'events.jsonl'), log);
  return dir;
}

const line = (id: number, extra: Record<string, unknown> = {}) => `${JSON.stringify({ type: 'step_started', step: '0', agent: 'w', attempt: 1, idempotency_key: `k${id}`, ...extra, event_id: id, ts: '2026-01-01T00:00:00.000Z' })}\n`;

describe('peeking at a session for the browser', () => {
  it('reads the id of the log\'s last whole event from its end, past a torn append and a line longer than the first look', () => {
    expect(peekSession(session(chainSpec, `${line(1)}${line(2)}${line(3)}`)).lastEventId()).toBe(3);
    expect(peekSession(session(chainSpec, `${line(1)}${line(2)}{"type":"step_comp`)).lastEventId()).toBe(2);
    const long = line(7, { response: 'x'.repeat(200_000) });
    expect(peekSession(session(chainSpec, `${line(1)}${long}`)).lastEventId()).toBe(7);
    expect(peekSession(session(chainSpec, long)).lastEventId()).toBe(7);
    expect(peekSession(session(chainSpec, '')).lastEventId()).toBeUndefined();
  });

  it('builds the pattern of every pattern type from the spec snapshot, and lists the steps under way by id', () => {
    const workflow = { pattern: { type: 'workflow', config: { tasks: [{ id: 'a', agent: 'w', input: 'x' }, { id: 'b', agent: 'w', input: 'y', deps: ['a'] }] } } };
    const parallel = { pattern: { type: 'parallel', config: { branches: [{ id: 'web', steps: [{ agent: 'w', input: 'x' }] }, { id: 'docs', steps: [{ type: 'hitl', prompt: 'ok?' }] }], reduce: { agent: 'w', input: 'z' } } } };
    expect(peekSession(session(workflow, '')).pattern.shape(initialProgress(0)).map((node) => node.id)).toEqual(['a', 'b']);
    const peek = peekSession(session(parallel, line(1)));
    expect(peek.pattern.type).toBe('parallel');
    expect(peek.checkpoint.in_progress).toEqual(['1']);
    expect(peek.events().map((e) => e.event_id)).toEqual([1]);
  });

  it('calls a spec that does not have the shape of its pattern not valid, without a schema', () => {
    for (const spec of [{ pattern: { type: 'workflow', config: { tasks: [{ agent: 'w' }] } } }, { pattern: { type: 'parallel', config: { branches: [{ id: 'b', steps: 'x' }] } } }, { pattern: { type: 'graph', config: {} } }, []]) {
      expect(() => peekSession(session(spec, ''))).toThrow(/spec\.json is not a valid spec/);
    }
  });
});
