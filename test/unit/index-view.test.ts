import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { readIndexView } from '../../source/store/session-index.js';
import { SessionStore } from '../../source/store/session-store.js';
import { generatedStore } from '../helpers/browser-fixture.js';
import { indexBasePath } from '../helpers/index-files.js';

const running = (ids: string[]) => ids.filter((_, i) => i % 7 === 5); // the generator's `running` sessions

describe('the index as the browser first reads it', () => {
  it('is current after a listing, and stops being current when a session is added, removed or a live one changes', () => {
    const { ctx, ids } = generatedStore(30);
    const home = ctx.env.ACODE_HOME!;
    new SessionStore(home).list();
    expect(readIndexView(home)!.current()).toBe(true);

    const later = new Date(Date.now() + 5000);
    utimesSync(join(home, 'sessions', running(ids)[0]!, 'session.json'), later, later);
    expect(readIndexView(home)!.current()).toBe(false);
    new SessionStore(home).list();
    expect(readIndexView(home)!.current()).toBe(true);

    // A completed session's file changing does not matter: its row is final.
    utimesSync(join(home, 'sessions', ids[0]!, 'session.json'), later, later);
    expect(readIndexView(home)!.current()).toBe(true);

    rmSync(join(home, 'sessions', ids[1]!), { recursive: true });
    expect(readIndexView(home)!.current()).toBe(false);
    new SessionStore(home).list();
    mkdirSync(join(home, 'sessions', 'a'.repeat(16)));
    expect(readIndexView(home)!.current()).toBe(false);
  });

  it('is missing when the index is damaged or a row is not what acode writes', () => {
    const { ctx, ids } = generatedStore(5);
    const home = ctx.env.ACODE_HOME!;
    writeFileSync(indexBasePath(home), JSON.stringify({ schemaVersion: 2, sessions: { [ids[0]!]: { session_id: ids[0] } } }));
    expect(readIndexView(home)).toBeNull();
    writeFileSync(indexBasePath(home), '{"schemaVersion": 2, "sessions": {');
    expect(readIndexView(home)).toBeNull();
  });

  it('draws the first rows from the index alone, then the first look reconciles them with the folder', async () => {
    const { ctx, ids } = generatedStore(20);
    const home = ctx.env.ACODE_HOME!;
    const gone = ids[3]!;
    rmSync(join(home, 'sessions', gone), { recursive: true });
    const source = await createSessionSource(ctx);
    expect(source.initial.rows.map((row) => row.session_id)).toContain(gone); // the index as it stood
    const fresh = await source.poll();
    expect(fresh).toHaveLength(19);
    expect(fresh!.map((row) => row.session_id)).not.toContain(gone);
    expect(await source.poll()).toBeNull(); // nothing changed since
  });

  it('does not reconcile at all when the index is current', async () => {
    const { ctx } = generatedStore(20);
    rmSync(join(ctx.env.ACODE_HOME!, 'index-head.json')); // the first frame comes from the index itself
    const source = await createSessionSource(ctx);
    expect(await source.poll()).toBeNull();
  });
});
