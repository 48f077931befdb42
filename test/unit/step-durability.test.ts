import { fdatasyncSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

describe('the durability of a step before its model call', () => {
  it('fdatasyncs events.jsonl after appending step_started and before the request reaches the model server', async () => {
    const { server, baseUrl } = fixture.current();
    const cwd = tempDir();
    const text = chainSpec({ steps: 3, provider: 'openai', host: baseUrl });
    const { spec } = loadSpecText(text, 'spec.yaml');
    const store = new SessionStore(join(cwd, 'home'));
    const handle = store.create({
      workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd,
      variables: {}, runtime: { provider: 'openai' }, specText: text, spec, stepsTotal: 3,
    });
    // What the disk holds at each sync and when each request arrives, in one timeline.
    const trace: string[] = [];
    const log = join(handle.dir, 'events.jsonl');
    const recordingSync: FileSync = {
      datasync(fd) {
        fdatasyncSync(fd);
        const last = JSON.parse(readFileSync(log, 'utf8').trimEnd().split('\n').at(-1)!) as EngineEvent;
        trace.push(`synced ${last.type}${'step' in last ? ` ${last.step}` : ''}`);
      },
    };
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
});
