import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSessions } from '../../bench/generate-sessions.js';
import { createSessionSource } from '../../source/commands/browser-source.js';
import type { CommandContext } from '../../source/commands/command-context.js';
import { countByStatus, type BrowserRow } from '../../source/state/browser-rows.js';
import { firstRowsFromHead } from '../../source/commands/head-rows.js';
import type { EngineEvent } from '../../source/engine/events.js';
import { applyEvent, initialProgress } from '../../source/engine/session-progress.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { headDirectories, headRows, readIndexHead } from '../../source/store/index-head.js';
import { indexFiles } from '../../source/store/index-log.js';
import { readIndexView, SessionIndex } from '../../source/store/session-index.js';
import { SessionLock } from '../../source/store/session-lock.js';
import { SessionStore } from '../../source/store/session-store.js';
import { generatedStore } from '../helpers/browser-fixture.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { indexBasePath } from '../helpers/index-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const running = (ids: string[]) => ids.filter((_, i) => i % 7 === 5); // the generator's `running` sessions

/** What the first frame would show if every row were read: the figures the head must reproduce. */
function wholeFigures(rows: BrowserRow[], cwd: string) {
  return { sessions: rows.length, counts: countByStatus(rows), shown: { here: rows.filter((r) => r.cwd === cwd || r.damaged).length, all: rows.length } };
}

describe('the index head (the first frame of a large store)', () => {
  it('gives the newest rows of this directory and the same figures as reading every row', async () => {
    const { ctx, ids, cwd } = generatedStore(600, { hereEvery: 3 });
    const home = ctx.env.ACODE_HOME!;
    // One running session is held by a live process (this one): counted as running, not interrupted.
    const held = SessionLock.acquire(join(home, 'sessions', running(ids).at(-1)!), 60_000);
    expect(held.acquired).toBe(true);
    // A damaged session has no directory: it is listed in every scope, and counted. (A listing
    // re-reads live rows only: the damaged one is a running session.)
    const damaged = running(ids)[0]!;
    writeFileSync(join(home, 'sessions', damaged, 'session.json'), '{ torn');
    new SessionStore(home).list();

    const source = await createSessionSource(ctx);
    const every = (await source.poll())!;
    expect(every).toHaveLength(600);
    const { whole, rows } = source.initial;
    expect(whole).toEqual(wholeFigures(every, cwd));
    expect(whole!.counts).toMatchObject({ running: 1, damaged: 1 });
    expect(whole!.counts.interrupted).toBe(running(ids).length - 2);

    const here = every.filter((r) => r.cwd === cwd || r.damaged);
    expect(rows.length).toBeLessThan(here.length);
    expect(rows.map((r) => r.session_id)).toEqual(here.slice(0, rows.length).map((r) => r.session_id));
    expect(rows.length).toBeGreaterThanOrEqual(headRows);
    expect(rows.find((r) => r.damaged)?.session_id).toBe(damaged);
    if (held.acquired) held.lock.release();
  });

  it('gives the newest rows of all directories when no session ran in this one', async () => {
    const { ctx } = generatedStore(300, { hereEvery: 1000 }); // only session 0 ran here…
    const elsewhere = { ...ctx, cwd: join(ctx.cwd, 'nowhere') };
    const source = await createSessionSource(elsewhere);
    const every = (await source.poll())!;
    expect(source.initial.whole).toEqual(wholeFigures(every, elsewhere.cwd));
    expect(source.initial.rows.map((r) => r.session_id)).toEqual(every.slice(0, headRows).map((r) => r.session_id));
  });

  it('follows every change of the index, and is ignored once the index was compacted without it', async () => {
    const { ctx, ids } = generatedStore(50);
    const home = ctx.env.ACODE_HOME!;
    const store = new SessionStore(home);
    store.delete(ids[49]!);
    expect(readIndexHead(home)!.newest[0]).toBe(ids[48]);
    expect(readIndexHead(home)!.total).toBe(49);

    // A head left behind by an older base (a crash between the two writes) is not used.
    copyFileSync(join(home, 'index-head.json'), join(home, 'old-head.json'));
    store.delete(ids[48]!);
    store.list(); // compacts: a new base, and its head
    copyFileSync(join(home, 'old-head.json'), join(home, 'index-head.json'));
    expect(readIndexHead(home)).toBeNull();
    const source = await createSessionSource(ctx);
    expect(source.initial.whole).toBeUndefined();
    expect(source.initial.rows).toHaveLength(48);

    writeFileSync(join(home, 'index-head.json'), '{"schemaVersion": 1, "index":');
    expect(readIndexHead(home)).toBeNull();
  });

  it('follows lines written since it was made — a new session, an old one changed, one deleted — with the figures of every row', async () => {
    const { ctx, ids, cwd } = generatedStore(600, { hereEvery: 3 });
    const home = ctx.env.ACODE_HOME!;
    const store = new SessionStore(home);
    const text = chainSpec({ steps: 1, provider: 'scripted' });
    const { spec } = loadSpecText(text, 'spec.yaml');
    const created = store.create({
      workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'spec.yaml'), spec_hash: 'h', cwd, variables: {}, runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: 1,
    });
    // The oldest failed session (far from the head's rows) paused by a resume: its journal says what it replaces.
    const old = store.open(ids[3]!);
    const journal = old.openJournal();
    const event: EngineEvent = { type: 'session_paused', reason: 'user_exit', message: 'paused', step: '0', event_id: 1, ts: new Date().toISOString() };
    journal.record(event, applyEvent(initialProgress(1), event));
    journal.close();
    store.delete(ids[10]!); // an old cancelled session
    expect(indexFiles(home).bases).toEqual([0]); // no compaction: the head was made before these lines

    const source = await createSessionSource(ctx);
    expect(source.initial.whole).toBeDefined(); // drawn from the head
    const every = (await source.poll())!;
    expect(every.map((r) => r.session_id)).toContain(created.record.session_id);
    expect(every.map((r) => r.session_id)).not.toContain(ids[10]);
    expect(every.find((r) => r.session_id === ids[3])!.status).toBe('paused');
    expect(source.initial.whole).toEqual(wholeFigures(every, cwd));
    const here = every.filter((r) => r.cwd === cwd || r.damaged);
    expect(source.initial.rows.map((r) => r.session_id)).toEqual(here.slice(0, source.initial.rows.length).map((r) => r.session_id));
  });

  it('is not used when a line changes a session it holds nothing about, from a writer that did not say what it replaced', () => {
    const { ctx, ids } = generatedStore(300);
    const home = ctx.env.ACODE_HOME!;
    const old = readIndexView(home)!.rows.find((r) => r.session_id === ids[0])!;
    new SessionIndex(home, () => undefined).upsert({ ...old, status: 'paused', updated_at: new Date().toISOString() });
    expect(readIndexHead(home)).toBeNull();
  });

  it("counts a store's many live rows looking only at the locks of rows shown, rows with a lock file when it was made, and rows changed since", () => {
    const { ctx, ids, cwd } = generatedStore(300, { hereEvery: 3 });
    const home = ctx.env.ACODE_HOME!;
    const elsewhere = running(ids).filter((_, i) => i % 3 !== 0); // running sessions of other directories
    const held = SessionLock.acquire(join(home, 'sessions', elsewhere[0]!), 60_000);
    expect(held.acquired).toBe(true);
    const store = new SessionStore(home);
    store.delete(ids[0]!);
    store.list(); // compacts: the new head notes the lock file
    new SessionIndex(home, () => undefined).upsert({ ...readIndexView(home)!.rows.find((r) => r.session_id === elsewhere[1])!, updated_at: '2030-01-01T00:00:00.000Z' });
    const head = readIndexHead(home)!;
    expect(head.locked).toEqual([elsewhere[0], elsewhere[1]]);

    const looked = new Set<string>();
    const lockOf = (id: string) => (looked.add(id), SessionLock.inspect(join(home, 'sessions', id), 60_000));
    const cheap = firstRowsFromHead(head, cwd, lockOf, 0)!;
    const exact = firstRowsFromHead(readIndexHead(home)!, cwd, (id) => SessionLock.inspect(join(home, 'sessions', id), 60_000))!;
    expect(cheap.whole).toEqual(exact.whole);
    expect(cheap.whole!.counts.running).toBe(1);
    const shown = new Set(cheap.rows.map((r) => r.session_id));
    expect([...looked].filter((id) => !shown.has(id))).toEqual([elsewhere[0], elsewhere[1]]);
    if (held.acquired) held.lock.release();
  });

  it('is not used when this directory has sessions but is not among the newest directories', async () => {
    const root = tempDir();
    const cwd = join(root, 'old-project');
    const home = join(root, 'home');
    generateSessions(home, 100, (i) => (i === 0 ? cwd : join(root, `dir-${i % (headDirectories + 2)}`)));
    const ctx = { env: { ACODE_HOME: home }, cwd } as unknown as CommandContext;
    expect(readIndexHead(home)!.directories[cwd]).toBe(1);
    const source = await createSessionSource(ctx);
    expect(source.initial.whole).toBeUndefined();
    expect(source.initial.rows).toHaveLength(100);
    expect(source.initial.rows.filter((r) => r.cwd === cwd)).toHaveLength(1);
  });
  it('is written by the browser when the index is current but its head is missing', async () => {
    const { ctx } = generatedStore(120);
    const home = ctx.env.ACODE_HOME!;
    rmSync(join(home, 'index-head.json'));
    const first = await createSessionSource(ctx);
    expect(first.initial.whole).toBeUndefined(); // drawn from the whole index
    await first.poll();
    const head = readIndexHead(home)!;
    expect(head.total).toBe(120);
    expect(Object.values(head.rows).some((row) => 'interrupted' in row)).toBe(false); // summaries only
    expect((await createSessionSource(ctx)).initial.whole).toMatchObject({ sessions: 120 });
  });

  it('names the base file itself: a rewrite with the same size and mtime is another version', () => {
    const { ctx } = generatedStore(20);
    const home = ctx.env.ACODE_HOME!;
    const index = indexBasePath(home);
    const { mtime } = statSync(index);
    writeFileSync(join(home, 'rewritten.json'), readFileSync(index));
    utimesSync(join(home, 'rewritten.json'), mtime, mtime);
    renameSync(join(home, 'rewritten.json'), index); // what another writer's rename does
    expect(readIndexHead(home)).toBeNull();
  });

  it('is not used when a row in it is not what acode writes', () => {
    const { ctx } = generatedStore(20);
    const home = ctx.env.ACODE_HOME!;
    const path = join(home, 'index-head.json');
    const head = JSON.parse(readFileSync(path, 'utf8')) as { newest: string[]; rows: Record<string, { tokens?: unknown }> };
    delete head.rows[head.newest[0]!]!.tokens;
    writeFileSync(path, JSON.stringify(head));
    expect(readIndexHead(home)).toBeNull();
  });

  it('does not fail a change of the index when it cannot be written', () => {
    const { ctx, ids } = generatedStore(10);
    const home = ctx.env.ACODE_HOME!;
    rmSync(join(home, 'index-head.json'));
    mkdirSync(join(home, 'index-head.json')); // a rename onto it fails
    new SessionStore(home).delete(ids[0]!);
    expect(existsSync(join(home, 'sessions', ids[0]!))).toBe(false);
    expect(new SessionStore(home).list()).toHaveLength(9);
  });
});
