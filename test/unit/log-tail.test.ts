import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { applyEvent, initialProgress, replayEvents, toCheckpoint } from '../../source/engine/session-progress.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { rolledForward } from '../../source/store/log-tail.js';
import { peekSession } from '../../source/store/session-peek.js';
import { sessionRecordSchema } from '../../source/store/session-record.js';
import { SessionStore } from '../../source/store/session-store.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A session whose journal recorded `completed` steps and was then abandoned, as by a kill -9: its snapshot is the session start's. */
function killedAfter(completed: number, responseBytes = 10) {
  const cwd = tempDir();
  const steps = completed + 2;
  const text = chainSpec({ steps, provider: 'scripted' });
  const { spec } = loadSpecText(text, 'spec.yaml');
  const store = new SessionStore(join(cwd, 'home'));
  const handle = store.create({ workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd, variables: {}, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: steps });
  const journal = handle.openJournal();
  const progress = initialProgress(steps);
  let id = 0;
  const record = (body: EngineEventBody) => {
    const event = { ...body, event_id: ++id, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(), epoch: 1 } as EngineEvent;
    journal.record(event, applyEvent(progress, event));
  };
  record({ type: 'session_started', workflow_name: spec.name, steps_total: steps, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
  for (let step = 0; step <= completed; step++) {
    record({ type: 'step_started', step: String(step), agent: 'worker', attempt: 1, idempotency_key: `k:${step}:1` });
    if (step < completed) record({ type: 'step_completed', step: String(step), agent: 'worker', attempt: 1, idempotency_key: `k:${step}:1`, response: `answer ${step} `.padEnd(responseBytes, 'x'), usage: { input: 1, output: 1 }, duration_ms: 1 });
  }
  const snapshot = () => sessionRecordSchema.parse(JSON.parse(readFileSync(join(handle.dir, 'session.json'), 'utf8'))).checkpoint;
  return { store, handle, steps, snapshot };
}

describe('a listing of a session whose snapshot lags its log', () => {
  it('shows the steps its log holds, as replay would', () => {
    const { store, handle, steps, snapshot } = killedAfter(2);
    expect(snapshot()).toMatchObject({ status: 'running', steps_done: 0, last_event_id: 1 });
    const replayed = toCheckpoint(replayEvents(handle.events(), steps));
    expect(rolledForward(handle.dir, snapshot())).toEqual(replayed);
    const row = store.list({ write: false }).find((r) => r.session_id === handle.record.session_id);
    expect(row).toMatchObject({ status: 'running', steps_done: 2, updated_at: replayed.last_event_at });
    expect(peekSession(handle.dir).checkpoint).toMatchObject({ status: 'running', steps_done: 2 });
  });

  it('reads back past 64 KiB of log when the events after the snapshot take that much, and ignores a torn last line', () => {
    const { handle, steps, snapshot } = killedAfter(60, 2048);
    appendFileSync(join(handle.dir, 'events.jsonl'), '{"type":"step_completed","step":60,"resp');
    expect(rolledForward(handle.dir, snapshot())).toEqual(toCheckpoint(replayEvents(handle.events(), steps)));
    expect(rolledForward(handle.dir, snapshot()).steps_done).toBe(60);
  });

  it('leaves a snapshot alone when the session is not running: its status was written with it', () => {
    const { handle, snapshot } = killedAfter(1);
    const paused = { ...snapshot(), status: 'paused' as const };
    expect(rolledForward(handle.dir, paused)).toBe(paused);
  });
});
