import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryBlobStore } from '../../source/engine/blob-store.js';
import { SessionExecutor } from '../../source/engine/session-executor.js';
import type { EngineEvent } from '../../source/engine/events.js';
import { applyEvent, initialProgress } from '../../source/engine/session-progress.js';
import { mergeVariables } from '../../source/engine/template-context.js';
import { createProvider } from '../../source/providers/create-provider.js';
import { secrets } from '../../source/secrets/redactor.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { bindEngine } from '../../source/state/bind-engine.js';
import { EventLogWriter, readEventLog } from '../../source/store/event-log.js';
import { SessionStore } from '../../source/store/session-store.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { MemoryJournal } from '../helpers/engine-harness.js';
import { headerEcho, leakedPieces } from '../helpers/header-echo.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const canary = 'sk-proj-SinkCanary4Hq9Lw2Xe7Rt5Yu1Io3Pa8Sd6Fg0';

/** Pieces of the canary in any file under `dir`: {} when none. */
function leaksUnder(dir: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const pieces = leakedPieces(readFileSync(path, 'latin1'), canary);
    if (pieces.length) found[path.slice(dir.length + 1)] = pieces;
  }
  return found;
}

describe('every sink redacts on its own, whatever its caller passes', () => {
  beforeEach(() => secrets.register(canary));

  it('the event log: an event carrying the key is appended without it, and reads back redacted', () => {
    const path = join(tempDir(), 'events.jsonl');
    const log = new EventLogWriter(path);
    log.append({ type: 'session_paused', reason: 'rate_limit', message: `HTTP 429: {"authorization":"Bearer ${canary}"}`, step: '0', event_id: 1, ts: '2026-01-01T00:00:00.000Z' }, true);
    log.close();
    expect(leakedPieces(readFileSync(path, 'utf8'), canary)).toEqual([]);
    expect(readEventLog(path)[0]).toMatchObject({ message: 'HTTP 429: {"authorization":"Bearer [REDACTED]"}' });
  });

  it('session.json, index.json and index-head.json: a key in the variables and a pause message never reaches them', () => {
    const cwd = tempDir();
    const home = join(cwd, 'home');
    const store = new SessionStore(home);
    const text = chainSpec({ steps: 1, provider: 'scripted' });
    const { spec } = loadSpecText(text, 'spec.yaml');
    const handle = store.create({
      workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd,
      variables: { pasted: `my key is ${canary}` }, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: 1,
    });
    const journal = handle.openJournal();
    const progress = initialProgress(1);
    const event: EngineEvent = { type: 'session_paused', reason: 'rate_limit', message: `key ${canary} rate limited`, step: '0', event_id: 1, ts: new Date().toISOString() };
    applyEvent(progress, event);
    journal.record(event, progress);
    journal.close();
    store.list();
    expect(leaksUnder(home)).toEqual({});
    expect(readFileSync(join(home, 'index-head.json'), 'utf8')).toContain('my key is [REDACTED]');
  });

  describe('engine listeners (the run view)', () => {
    const fixture = openAiServerPerTest();
    let server: OpenAiTestServer;
    beforeEach(() => ({ server } = fixture.current()));

    it('see only redacted events: the run store and the journal hold no piece of an echoed key', async () => {
      server.handler = (r) => headerEcho(429, r.headers, 'openai', { 'retry-after': '1' });
      const { spec } = loadSpecText(chainSpec({ steps: 1, provider: 'openai', host: fixture.current().baseUrl }), 'spec.yaml');
      const journal = new MemoryJournal();
      const executor = new SessionExecutor({
        sessionId: 'sinks', spec, variables: mergeVariables(spec, {}), provider: createProvider(spec, { OPENAI_API_KEY: canary }),
        journal, blobs: new MemoryBlobStore(), progress: initialProgress(1), cwd: tempDir(), autoResume: { enabled: false, maxAttempts: 1, onUnknown: 'pause' },
      });
      const heard: EngineEvent[] = [];
      executor.subscribe((e) => heard.push(e));
      const { store, unbind } = bindEngine(executor, { sessionId: 'sinks', workflowName: spec.name, steps: [{ id: '0', label: 'worker', title: 'step 1', group: null }] });
      const summary = await executor.run();
      unbind();
      expect(summary.status).toBe('paused');
      const state = store.getState();
      expect(state.message).toContain('HTTP 429');
      expect(leakedPieces(JSON.stringify(state), canary)).toEqual([]);
      expect(leakedPieces(JSON.stringify(heard), canary)).toEqual([]);
      expect(leakedPieces(JSON.stringify(journal.events), canary)).toEqual([]);
    });
  });
});
