import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionExecutor } from '../../source/engine/session-executor.js';
import { initialProgress, replayEvents, toCheckpoint } from '../../source/engine/session-progress.js';
import { createProvider } from '../../source/providers/create-provider.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { defaultHome } from '../../source/store/acode-home.js';
import { SessionStore } from '../../source/store/session-store.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { indexBasePath } from '../helpers/index-files.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Runs a scripted chain of `steps` steps into a real store, as `acode run` does. */
async function runIntoStore(store: SessionStore, steps: number, cwd: string) {
  const text = chainSpec({ steps, provider: 'scripted', scripted: '  scripted:\n    response_bytes: 2048' });
  const { spec } = loadSpecText(text, 'spec.yaml');
  const handle = store.create({
    workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd,
    variables: {}, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: steps,
  });
  const journal = handle.openJournal();
  const executor = new SessionExecutor({
    sessionId: handle.record.session_id, spec, variables: { topic: 't' }, provider: createProvider(spec, {}), journal, blobs: handle.blobs(),
    progress: initialProgress(steps), cwd,
  });
  await executor.run();
  journal.close();
  return handle;
}

describe('the session store', () => {
  it('never lists a session whose creation was killed half-way, and the next listing clears what that creation left', async () => {
    const cwd = tempDir();
    const home = join(cwd, 'home');
    const store = new SessionStore(home);
    const first = await runIntoStore(store, 2, cwd);
    // What a creator killed after the spec files, before session.json, leaves: a hidden folder.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const abandoned = join(home, 'sessions', `.0123456789abcdef.creating.${dead}`);
    mkdirSync(abandoned);
    writeFileSync(join(abandoned, 'spec.yaml'), 'version: 0');
    const listed = () => new SessionStore(home).list({ write: false }).map((row) => [row.session_id, row.status]);
    expect(listed()).toEqual([[first.record.session_id, 'completed']]);
    const second = await runIntoStore(store, 2, cwd);
    expect(existsSync(abandoned)).toBe(true); // a creation never reads the whole sessions folder
    store.list();
    expect(existsSync(abandoned)).toBe(false);
    expect(readdirSync(join(home, 'sessions')).sort()).toEqual([first.record.session_id, second.record.session_id].sort());
    // Every session folder is whole from the moment it appears.
    for (const handle of [first, second]) expect(existsSync(join(handle.dir, 'session.json'))).toBe(true);
  });

  it('keeps the checkpoint the same size however long the chain', async () => {
    const cwd = tempDir();
    const store = new SessionStore(join(cwd, 'home'));
    const short = await runIntoStore(store, 10, cwd);
    const long = await runIntoStore(store, 300, cwd);
    const size = (dir: string) => statSync(join(dir, 'session.json')).size;
    expect(Math.abs(size(long.dir) - size(short.dir))).toBeLessThan(16);
  });

  it('stores a checkpoint equal to the replay of its event log', async () => {
    const cwd = tempDir();
    const store = new SessionStore(join(cwd, 'home'));
    const handle = await runIntoStore(store, 5, cwd);
    const reopened = store.open(handle.record.session_id);
    expect(toCheckpoint(replayEvents(reopened.events(), 5))).toEqual(reopened.record.checkpoint);
  });

  it('finds a session by a unique prefix of 4+ characters and refuses shorter ones', async () => {
    const cwd = tempDir();
    const store = new SessionStore(join(cwd, 'home'));
    const handle = await runIntoStore(store, 1, cwd);
    const id = handle.record.session_id;
    expect(store.resolveId(id.slice(0, 4))).toBe(id);
    expect(() => store.resolveId(id.slice(0, 3))).toThrowError(/at least 4 characters/);
    expect(() => store.resolveId('zzzzzz')).toThrowError(/no session matches/);
  });

  it('rebuilds a corrupt index from the session files', async () => {
    const cwd = tempDir();
    const store = new SessionStore(join(cwd, 'home'));
    const a = await runIntoStore(store, 1, cwd);
    const b = await runIntoStore(store, 2, cwd);
    store.list(); // a base
    writeFileSync(indexBasePath(store.home), '{"schemaVersion": 2, "sessions": {"x": tor');
    const ids = store.list().map((row) => row.session_id).sort();
    expect(ids).toEqual([a.record.session_id, b.record.session_id].sort());
    expect(JSON.parse(readFileSync(indexBasePath(store.home), 'utf8')).sessions[a.record.session_id].status).toBe('completed');
  });

  it('reports a damaged session file with what to do', async () => {
    const cwd = tempDir();
    const store = new SessionStore(join(cwd, 'home'));
    const handle = await runIntoStore(store, 1, cwd);
    writeFileSync(join(handle.dir, 'session.json'), '{"schemaVersion": 1');
    expect(() => store.open(handle.record.session_id)).toThrowError(/is damaged: .*session\.json does not parse.*acode sessions delete/);
  });

  it('lives in ACODE_HOME, else under XDG_DATA_HOME', () => {
    expect(defaultHome({ ACODE_HOME: '/x/acode-home' })).toBe('/x/acode-home');
    expect(defaultHome({ XDG_DATA_HOME: '/data' })).toBe('/data/acode');
  });
});
