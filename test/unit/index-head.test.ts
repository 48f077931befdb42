import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSessions } from '../../bench/generate-sessions.js';
import { createSessionSource } from '../../source/commands/browser-source.js';
import type { CommandContext } from '../../source/commands/command-context.js';
import { countByStatus, type BrowserRow } from '../../source/state/browser-rows.js';
import { headDirectories, headRows, readIndexHead } from '../../source/store/index-head.js';
import { SessionLock } from '../../source/store/session-lock.js';
import { SessionStore } from '../../source/store/session-store.js';
import { generatedStore } from '../helpers/browser-fixture.js';
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

  it('is written with every change of the index, and ignored once the index changed without it', async () => {
    const { ctx, ids } = generatedStore(50);
    const home = ctx.env.ACODE_HOME!;
    const store = new SessionStore(home);
    store.delete(ids[49]!);
    expect(readIndexHead(home)!.newest[0]).toBe(ids[48]);
    expect(readIndexHead(home)!.total).toBe(49);

    // A head left behind by an older index (a crash between the two writes) is not used.
    copyFileSync(join(home, 'index-head.json'), join(home, 'old-head.json'));
    store.delete(ids[48]!);
    copyFileSync(join(home, 'old-head.json'), join(home, 'index-head.json'));
    expect(readIndexHead(home)).toBeNull();
    const source = await createSessionSource(ctx);
    expect(source.initial.whole).toBeUndefined();
    expect(source.initial.rows).toHaveLength(48);

    writeFileSync(join(home, 'index-head.json'), '{"schemaVersion": 1, "index":');
    expect(readIndexHead(home)).toBeNull();
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

  it('names the index file itself: a rewrite with the same size and mtime is another version', () => {
    const { ctx } = generatedStore(20);
    const home = ctx.env.ACODE_HOME!;
    const index = join(home, 'index.json');
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
