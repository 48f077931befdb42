import { createHash } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initialProgress, toCheckpoint } from '../source/engine/session-progress.js';
import { fileStamp } from '../source/store/file-mtime.js';
import { filesMtime } from '../source/store/session-index.js';
import { writeIndexHead } from '../source/store/index-head.js';
import { baseName } from '../source/store/index-log.js';
import { newestFirst } from '../source/store/summary-rows.js';
import type { SessionRecord, SessionSummary } from '../source/store/session-record.js';
import { summarize } from '../source/store/session-record.js';

const workflows = ['research-chain', 'code-review', 'release-notes', 'bug-triage', 'docs-writer', 'data-cleanup', 'api-migration', 'test-writer'];
const statuses = ['completed', 'completed', 'completed', 'failed', 'paused', 'running', 'cancelled'] as const;
const topics = ['durable agents', 'rate limits', 'postgres', 'ink tui', 'zustand', 'kubernetes', 'rust ffi', 'typescript 6'];

export interface GeneratedStore {
  home: string;
  ids: string[];
}

/**
 * Writes `count` sessions in acode's on-disk format (session.json, spec.json, spec.yaml,
 * events.jsonl) and their index (a base and its head), without fsync — test and benchmark data, made fast.
 * `cwdOf(i)` decides each session's working directory.
 */
export function generateSessions(home: string, count: number, cwdOf: (i: number) => string): GeneratedStore {
  const store: GeneratedStore = { home, ids: [] };
  for (const _ of writeSessions(store, count, cwdOf));
  return store;
}

/**
 * generateSessions, letting the event loop turn every thousand sessions: a hundred thousand take
 * a minute on a slow disk, and a signal must be able to stop the bench (and remove them) meanwhile.
 */
export async function generateSessionsInTurns(home: string, count: number, cwdOf: (i: number) => string): Promise<GeneratedStore> {
  const store: GeneratedStore = { home, ids: [] };
  for (const _ of writeSessions(store, count, cwdOf)) await new Promise((resolve) => setImmediate(resolve));
  return store;
}

function* writeSessions(store: GeneratedStore, count: number, cwdOf: (i: number) => string): Generator<void> {
  const { home, ids } = store;
  const index: Record<string, SessionSummary> = {};
  const mtimes: Record<string, number> = {};
  mkdirSync(join(home, 'sessions'), { recursive: true });
  const start = Date.parse('2026-01-01T00:00:00Z');
  for (let i = 0; i < count; i++) {
    const id = createHash('sha256').update(`session-${i}`).digest('hex').slice(0, 16);
    const steps = 3 + (i % 5);
    const workflow = workflows[i % workflows.length]!;
    const status = statuses[i % statuses.length]!;
    const done = status === 'completed' ? steps : i % steps;
    const at = new Date(start + i * 60_000).toISOString();
    const spec = {
      version: 0, name: workflow, runtime: { provider: 'scripted' }, agents: { worker: { prompt: 'You work.' } },
      pattern: { type: 'chain', config: { steps: Array.from({ length: steps }, (_, k) => ({ agent: 'worker', input: `step ${k}` })) } },
    };
    const checkpoint = {
      ...toCheckpoint(initialProgress(steps)),
      status,
      next_step: done,
      tokens: { input: 100 * done, output: 250 * done },
      last_event_id: 1 + 2 * done,
      last_event_at: at,
      last_response_preview: done ? `Findings ${i} on ${topics[i % topics.length]}: agents plan, call tools and keep state.` : '',
      stop_reason: status === 'paused' ? ('user_exit' as const) : status === 'failed' ? ('provider_error' as const) : null,
    };
    const record: SessionRecord = {
      schemaVersion: 2, session_id: id, workflow_name: workflow, pattern_type: 'chain', spec_path: join(cwdOf(i), `${workflow}.yaml`), spec_hash: 'generated',
      cwd: cwdOf(i), variables: { topic: topics[i % topics.length]! }, runtime: { provider: 'scripted' }, created_at: at, updated_at: at, checkpoint,
    };
    const dir = join(home, 'sessions', id);
    mkdirSync(dir);
    writeFileSync(join(dir, 'session.json'), JSON.stringify(record));
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
    writeFileSync(join(dir, 'spec.yaml'), `# generated\nname: ${workflow}\n`);
    writeFileSync(join(dir, 'events.jsonl'), '');
    index[id] = summarize(record);
    mtimes[id] = filesMtime(join(home, 'sessions'), id);
    ids.push(id);
    if (i % 1000 === 999) yield;
  }
  // As acode leaves it after a listing: one base, reconciled with the folder, every row's file time known, no log yet.
  const sessionsMtime = statSync(join(home, 'sessions')).mtimeMs;
  const base = join(home, baseName(0));
  writeFileSync(base, JSON.stringify({ schemaVersion: 2, generation: 0, sessions: index, mtimes, sessions_mtime: sessionsMtime }));
  writeIndexHead(home, Object.values(index).sort(newestFirst), { base: { name: baseName(0), stamp: fileStamp(base)! }, through: { generation: 0, offset: 0 } });
}
