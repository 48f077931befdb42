import { fdatasync, fdatasyncSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MemoryBlobStore } from '../../source/engine/blob-store.js';
import { SessionExecutor } from '../../source/engine/session-executor.js';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { recoverProgress } from '../../source/engine/replay-check.js';
import { applyEvent, initialProgress, replayEvents, toCheckpoint } from '../../source/engine/session-progress.js';
import { patternFor } from '../../source/engine/patterns/pattern-for.js';
import { mergeVariables } from '../../source/engine/template-context.js';
import { createProvider } from '../../source/providers/create-provider.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import type { FileSync } from '../../source/store/event-log.js';
import { sessionRecordSchema } from '../../source/store/session-record.js';
import { SessionStore } from '../../source/store/session-store.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = openAiServerPerTest();

function newSession(cwd: string, text: string) {
  const { spec } = loadSpecText(text, 'spec.yaml');
  const store = new SessionStore(join(cwd, 'home'));
  const steps = patternFor(spec).shape(initialProgress(0)).length;
  const handle = store.create({
    workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd,
    variables: mergeVariables(spec, {}), runtime: { provider: spec.runtime.provider }, specText: text, spec, stepsTotal: steps,
  });
  return { spec, store, handle, steps };
}

const readRecord = (dir: string) => sessionRecordSchema.parse(JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8')));

describe('the checkpoint, a lazy snapshot of the log', () => {
  it('is never written ahead of what the log holds durably, and is written far less often than once a step', async () => {
    const cwd = tempDir();
    const { spec, handle, steps } = newSession(cwd, chainSpec({ steps: 300, provider: 'scripted', scripted: '  scripted:\n    response_bytes: 64' }));
    const log = join(handle.dir, 'events.jsonl');
    // Event ids of a new session are its line numbers: a sync covering n lines makes events 1…n durable.
    const lines = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    let durable = 0;
    const fileSync: FileSync = {
      datasync(fd) {
        const covers = lines();
        fdatasyncSync(fd);
        durable = Math.max(durable, covers);
      },
      async datasyncAsync(fd) {
        const covers = lines();
        await promisify(fdatasync)(fd);
        durable = Math.max(durable, covers);
      },
    };
    const ahead: string[] = [];
    const snapshots: number[] = [];
    // Watches every write of session.json as it happens.
    const write = handle.db.write.bind(handle.db);
    handle.db.write = () => {
      const at = handle.db.data.checkpoint.last_event_id;
      if (at > durable) ahead.push(`snapshot at event ${at} while the log was durable to event ${durable}`);
      snapshots.push(at);
      write();
    };
    const journal = handle.openJournal({ fileSync });
    const started = performance.now();
    const executor = new SessionExecutor({ sessionId: handle.record.session_id, spec, variables: mergeVariables(spec, {}), provider: createProvider(spec, {}), journal, blobs: new MemoryBlobStore(), progress: initialProgress(steps), cwd });
    expect((await executor.run()).status).toBe('completed');
    const elapsedSeconds = (performance.now() - started) / 1000;
    journal.close();
    expect(ahead).toEqual([]);
    const events = lines();
    // At the start and the end (changes of status), every 256 events, and at most once a second besides.
    expect(snapshots.length).toBeGreaterThanOrEqual(2 + Math.floor((events - 2) / 256));
    expect(snapshots.length).toBeLessThanOrEqual(2 + Math.ceil(events / 256) + Math.ceil(elapsedSeconds));
    expect(snapshots.length).toBeLessThan(steps / 20);
    // The last one is the whole log, equal to its replay.
    expect(readRecord(handle.dir).checkpoint).toEqual(toCheckpoint(replayEvents(handle.events(), steps)));
  });

  it('says running from the session start on, before the first model call, so listings show it right', async () => {
    const { server, baseUrl } = fixture.current();
    const cwd = tempDir();
    const { spec, store, handle, steps } = newSession(cwd, chainSpec({ steps: 3, provider: 'openai', host: baseUrl }));
    const seen: string[] = [];
    server.handler = (request) => {
      const row = store.list({ write: false }).find((r) => r.session_id === handle.record.session_id);
      seen.push(`step ${request.step}: session.json ${readRecord(handle.dir).checkpoint.status}, listed ${row?.status}`);
      return { kind: 'answer' };
    };
    const journal = handle.openJournal();
    const executor = new SessionExecutor({ sessionId: handle.record.session_id, spec, variables: { topic: 't' }, provider: createProvider(spec, { OPENAI_API_KEY: 'k' }), journal, blobs: handle.blobs(), progress: initialProgress(steps), cwd });
    expect((await executor.run()).status).toBe('completed');
    journal.close();
    expect(seen).toEqual([0, 1, 2].map((step) => `step ${step}: session.json running, listed running`));
    expect(store.list({ write: false }).find((r) => r.session_id === handle.record.session_id)?.status).toBe('completed');
  });

  it('catches up with the log when the journal is closed, and a resume rolls a lagging one forward', () => {
    const cwd = tempDir();
    const { handle } = newSession(cwd, chainSpec({ steps: 2, provider: 'scripted' }));
    const journal = handle.openJournal();
    const progress = initialProgress(2);
    let id = 0;
    const record = (body: EngineEventBody) => {
      const event = { ...body, event_id: ++id, ts: new Date().toISOString(), epoch: 0 } as EngineEvent;
      journal.record(event, applyEvent(progress, event));
    };
    record({ type: 'session_started', workflow_name: 'w', steps_total: 2, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } });
    record({ type: 'step_started', step: '0', agent: 'worker', attempt: 1, idempotency_key: 'k:0:1' });
    record({ type: 'step_completed', step: '0', agent: 'worker', attempt: 1, idempotency_key: 'k:0:1', response: 'done', usage: { input: 1, output: 1 }, duration_ms: 1 });
    // A process killed now leaves the snapshot of the session start: the log, replayed past it, has the step.
    const lagging = readRecord(handle.dir).checkpoint;
    expect(lagging).toMatchObject({ status: 'running', last_event_id: 1, steps_done: 0 });
    expect(recoverProgress(handle.events(), lagging)).toMatchObject({ steps_done: 1, last_event_id: 3 });
    journal.close();
    expect(readRecord(handle.dir).checkpoint).toEqual(toCheckpoint(progress));
  });
});
