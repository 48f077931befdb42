import { fdatasync, fdatasyncSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SessionExecutor } from '../../source/engine/session-executor.js';
import type { EngineEvent } from '../../source/engine/events.js';
import { initialProgress } from '../../source/engine/session-progress.js';
import { createProvider } from '../../source/providers/create-provider.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import type { FileSync } from '../../source/store/event-log.js';
import { SessionStore } from '../../source/store/session-store.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixture = openAiServerPerTest();

/** The real fdatasync, inline and off the event loop, reporting the last event each one made durable. */
function recordingFileSync(log: string, synced: (covered: string) => void): FileSync {
  const lastLine = () => {
    const last = JSON.parse(readFileSync(log, 'utf8').trimEnd().split('\n').at(-1)!) as EngineEvent;
    return `${last.type}${'step' in last ? ` ${last.step}` : ''}`;
  };
  return {
    datasync(fd) {
      const covered = lastLine();
      fdatasyncSync(fd);
      synced(covered);
    },
    async datasyncAsync(fd) {
      const covered = lastLine();
      await promisify(fdatasync)(fd);
      synced(covered);
    },
  };
}

function newSession(cwd: string, steps: number, host: string) {
  const text = chainSpec({ steps, provider: 'openai', host });
  const { spec } = loadSpecText(text, 'spec.yaml');
  const store = new SessionStore(join(cwd, 'home'));
  const handle = store.create({
    workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd,
    variables: {}, runtime: { provider: 'openai' }, specText: text, spec, stepsTotal: steps,
  });
  return { spec, handle };
}

describe('the durability of a step before its model call', () => {
  it('fdatasyncs events.jsonl after appending step_started and before the request reaches the model server', async () => {
    const { server, baseUrl } = fixture.current();
    const cwd = tempDir();
    const { spec, handle } = newSession(cwd, 3, baseUrl);
    // What each sync made durable (the last line it covers, noted before it starts) and when each request arrives, in one timeline.
    const trace: string[] = [];
    const recordingSync = recordingFileSync(join(handle.dir, 'events.jsonl'), (covered) => trace.push(`synced ${covered}`));
    server.handler = (request) => {
      trace.push(`request ${request.step}`);
      return { kind: 'answer' };
    };
    const journal = handle.openJournal({ fileSync: recordingSync });
    const executor = new SessionExecutor({
      sessionId: handle.record.session_id, spec, variables: { topic: 't' }, provider: createProvider(spec, { OPENAI_API_KEY: 'k' }), journal,
      blobs: handle.blobs(), progress: initialProgress(3), cwd,
    });
    const summary = await executor.run();
    journal.close();
    expect(summary.status).toBe('completed');
    expect(trace.filter((t) => /step_started|request/.test(t))).toEqual(['synced step_started 0', 'request 0', 'synced step_started 1', 'request 1', 'synced step_started 2', 'request 2']);
    // Each request came right after its step_started was synced: nothing unsynced in between.
    for (const step of [0, 1, 2]) expect(trace[trace.indexOf(`request ${step}`) - 1]).toBe(`synced step_started ${step}`);
  });

  it("costs one fdatasync a step: a step's step_completed reaches the disk with the next step's step_started", async () => {
    const { server, baseUrl } = fixture.current();
    const cwd = tempDir();
    const steps = 12;
    const { spec, handle } = newSession(cwd, steps, baseUrl);
    const synced: string[] = [];
    const requests: number[] = [];
    server.handler = () => {
      requests.push(synced.length);
      return { kind: 'answer' };
    };
    const journal = handle.openJournal({ fileSync: recordingFileSync(join(handle.dir, 'events.jsonl'), (covered) => synced.push(covered)) });
    const executor = new SessionExecutor({
      sessionId: handle.record.session_id, spec, variables: { topic: 't' }, provider: createProvider(spec, { OPENAI_API_KEY: 'k' }), journal,
      blobs: handle.blobs(), progress: initialProgress(steps), cwd,
    });
    const started = performance.now();
    expect((await executor.run()).status).toBe('completed');
    const elapsedMs = performance.now() - started;
    journal.close();
    // The start (with its checkpoint), one sync per step, the artifact's write-ahead intent, the end: nothing else.
    expect(synced).toEqual(['session_started', ...Array.from({ length: steps }, (_, n) => `step_started ${n}`), 'file_write_intended @artifacts', 'session_completed']);
    // Each request went out after its own step's sync, and no other sync happened in between.
    expect(requests).toEqual(Array.from({ length: steps }, (_, n) => n + 2));
    // The snapshot was written at the start and at the end (both changes of status) and once the first
    // step's input was known (the browser's rows quote it), not after each step (only once a second
    // besides, should this machine be slow enough for the run to take that long).
    expect(journal.checkpointsWritten).toBeLessThanOrEqual(3 + Math.floor(elapsedMs / 1000));
  });
});
