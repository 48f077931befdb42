import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { createBrowserStore } from '../../source/state/browser-store.js';
import { BrowserApp } from '../../source/ui/browser/browser-app.js';
import { generatedStore } from '../helpers/browser-fixture.js';
import { indexBasePath } from '../helpers/index-files.js';
import { keys, renderInk } from '../helpers/ink.js';

const now = Date.parse('2026-02-01T00:00:00Z');

/** The browser as `acode` opens it: the first frame, then (like its first look at the disk) every row. */
async function open(count = 40, options: { hereEvery?: number } = {}) {
  const fixture = generatedStore(count, options);
  const source = await createSessionSource(fixture.ctx);
  const store = createBrowserStore(source, fixture.cwd);
  const ui = renderInk(<BrowserApp store={store} now={now} />);
  const rows = await source.poll();
  if (rows) store.getState().replaceRows(rows);
  return { ...fixture, store, ui };
}

const selectedLine = (frame: string) => frame.split('\n').find((line) => line.includes('❯')) ?? '';

describe('the session browser', () => {
  it('shows the header with counts, the table, the details of the selection and the keys', async () => {
    const { ui, ids } = await open(14);
    const frame = ui.frame();
    expect(frame).toMatch(/acode .*home · 14 sessions · 2 interrupted · 2 paused · 6 completed · 2 failed/);
    expect(frame).toContain('filter all · scope this directory · 14 shown');
    expect(frame).toMatch(/ID +WORKFLOW +STATUS +STEPS +TOKENS +UPDATED +DIRECTORY/);
    // Newest first: the last generated session is selected.
    expect(selectedLine(frame)).toContain(ids.at(-1)!.slice(0, 8));
    expect(frame).toMatch(/last response Findings 13 on/);
    expect(frame).toContain('↑↓ move · Enter resume · → steps · r resume · / search · Tab filter');
  });

  it('counts one session as "1 session" in the header', async () => {
    const { ui } = await open(1);
    expect(ui.frame()).toMatch(/home · 1 session · /);
  });

  it("ticks the updated ages while it sits idle: a session updated 5s ago reads a second older a second later", async () => {
    const fixture = generatedStore(3);
    const source = await createSessionSource(fixture.ctx);
    const store = createBrowserStore(source, fixture.cwd);
    const rows = (await source.poll()) ?? source.initial.rows;
    const updated = new Date(Date.now() - 5000).toISOString();
    store.getState().replaceRows(rows.map((row, i) => (i === 0 ? { ...row, updated_at: updated } : row)));
    const ui = renderInk(<BrowserApp store={store} />);
    const age = (frame: string) => Number(/ (\d+)s ago/.exec(frame)?.[1]);
    const first = age(await ui.waitForFrame((frame) => / \ds ago/.test(frame)));
    // No key pressed, nothing changed on disk: only the clock moves the frame, a second later.
    await ui.waitForFrame((frame) => age(frame) === first + 1);
  });

  it('draws the first frame of a large store from the index head with the whole list\'s figures, then loads every row', async () => {
    const fixture = generatedStore(900, { hereEvery: 3 });
    const source = await createSessionSource(fixture.ctx);
    expect(source.initial.rows.length).toBeLessThan(300); // only the head's rows are parsed
    const store = createBrowserStore(source, fixture.cwd);
    const ui = renderInk(<BrowserApp store={store} now={now} />);
    const header = (frame: string) => frame.split('\n').slice(0, 2).join('\n');
    const first = await ui.waitForFrame((f) => f.includes('▼'));
    expect(first).toMatch(/· 900 sessions · \d+ interrupted · \d+ paused · \d+ completed/);
    expect(first).toContain('scope this directory · 300 shown');
    const pageSize = store.getState().pageSize;
    expect(first).toContain(`▼ ${300 - pageSize} more`);

    store.getState().replaceRows((await source.poll())!);
    expect(store.getState().visible).toHaveLength(300);
    const loaded = await ui.waitForFrame(() => store.getState().whole === null);
    expect(header(loaded)).toBe(header(first));
    expect(loaded).toContain(`▼ ${300 - pageSize} more`);
  });

  it('keeps what keys pressed on the first rows meant once every row loads: the end, the best match, the count', async () => {
    const fixture = generatedStore(900, { hereEvery: 3 });
    const source = await createSessionSource(fixture.ctx);
    const store = createBrowserStore(source, fixture.cwd);
    const ui = renderInk(<BrowserApp store={store} now={now} />);
    const every = (await source.poll())!; // read now, handed over after the keys below
    ui.stdin.write('G');
    await ui.waitForFrame(() => store.getState().selected > 0);
    ui.stdin.write('s'); // every directory, still partly loaded
    await ui.waitForFrame((f) => f.includes('all directories · 900 shown'));
    store.getState().replaceRows(every);
    expect(store.getState().visible).toHaveLength(900);
    expect(store.getState().selectedId).toBe(fixture.ids[0]); // the oldest session: the end of the whole list

    const again = createBrowserStore(await createSessionSource(fixture.ctx), fixture.cwd);
    again.getState().startSearch();
    again.getState().typeSearch('kubernetes');
    again.getState().endSearch(true);
    // Every kubernetes session of this directory in the whole list, not only among the first rows.
    const matches = every.filter((row) => row.cwd === fixture.cwd && row.variables.topic === 'kubernetes').map((row) => row.session_id);
    const onFirstRows = again.getState().visible.length;
    expect(onFirstRows).toBeLessThan(matches.length);
    again.getState().replaceRows(every);
    const shown = again.getState().visible.map((row) => row.session_id);
    expect(shown).toHaveLength(matches.length);
    expect(new Set(shown)).toEqual(new Set(matches));
    const best = again.getState().visible[0]!;
    expect(again.getState()).toMatchObject({ selected: 0, selectedId: best.session_id });
    expect(best.variables.topic).toBe('kubernetes');
  });

  it('moves with j/k and arrows, pages and jumps to either end', async () => {
    const { ui, store, ids } = await open(60);
    ui.stdin.write('j');
    await ui.waitForFrame((f) => selectedLine(f).includes(ids.at(-2)!.slice(0, 8)));
    ui.stdin.write(keys.up);
    await ui.waitForFrame((f) => selectedLine(f).includes(ids.at(-1)!.slice(0, 8)));
    ui.stdin.write('G');
    await ui.waitForFrame((f) => selectedLine(f).includes(ids[0]!.slice(0, 8)));
    expect(store.getState().selected).toBe(59);
    expect(ui.frame()).toMatch(/▲ \d+ more/);
    ui.stdin.write('g');
    await ui.waitForFrame((f) => selectedLine(f).includes(ids.at(-1)!.slice(0, 8)));
    ui.stdin.write(keys.pageDown);
    await ui.waitForFrame(() => store.getState().selected === store.getState().pageSize);
  });

  it('cycles filters with Tab', async () => {
    const { ui, store } = await open(35);
    ui.stdin.write('\t');
    await ui.waitForFrame((f) => f.includes('filter resumable'));
    expect(store.getState().visible.every((row) => row.resumable)).toBe(true);
    ui.stdin.write('\t');
    await ui.waitForFrame((f) => f.includes('filter running'));
    ui.stdin.write('\t');
    await ui.waitForFrame((f) => f.includes('filter paused'));
    expect(store.getState().visible.every((row) => row.status === 'paused' || row.interrupted)).toBe(true);
  });

  it('widens from this directory to every session with s', async () => {
    const { ui } = await open(30, { hereEvery: 3 });
    expect(ui.frame()).toContain('scope this directory · 10 shown');
    ui.stdin.write('s');
    await ui.waitForFrame((f) => f.includes('scope all directories · 30 shown'));
  });

  it('fuzzy-searches every session, not just the visible ones, on /', async () => {
    const { ui, store } = await open(200);
    ui.stdin.write('/');
    for (const ch of 'kubernetes') ui.stdin.write(ch);
    await ui.waitForFrame((f) => f.includes('/kubernetes'));
    const shown = store.getState().visible;
    expect(shown).toHaveLength(25); // every 8th session's topic
    expect(shown.every((row) => row.variables.topic === 'kubernetes')).toBe(true);
    ui.stdin.write(keys.escape);
    await ui.waitForFrame((f) => f.includes('200 shown'));
  });

  it('keeps a query typed while the app was busy, when the text and its Enter arrive as one chunk', async () => {
    const { ui, store } = await open(40);
    ui.stdin.write('/');
    await ui.waitForFrame(() => store.getState().searching);
    ui.stdin.write('postgres\r');
    await ui.waitForFrame((f) => f.includes('/postgres  (/ to edit, Esc clears)'));
    expect(store.getState()).toMatchObject({ query: 'postgres', searching: false });
    // The query is the same as typed key by key: every postgres session, best matches first.
    const shown = store.getState().visible;
    expect(shown.filter((row) => row.variables.topic === 'postgres')).toHaveLength(5);
    expect(shown[0]!.variables.topic).toBe('postgres');
  });

  it('acts on keys typed before it was ready one at a time, as typed: moves, then a search and its Enter', async () => {
    const { ui, store, ids } = await open(40);
    ui.stdin.write('jjjk'); // arrives as one chunk
    await ui.waitForFrame((f) => selectedLine(f).includes(ids.at(-3)!.slice(0, 8)));
    expect(store.getState().selected).toBe(2);
    ui.stdin.write('G/postgres\r');
    await ui.waitForFrame((f) => f.includes('/postgres  (/ to edit, Esc clears)'));
    expect(store.getState()).toMatchObject({ query: 'postgres', searching: false });
    expect(store.getState().visible[0]!.variables.topic).toBe('postgres');
  });

  it('deletes the selected session after y, and keeps it after n', async () => {
    const { ui, store, ctx, ids } = await open(5);
    const id = ids.at(-1)!;
    ui.stdin.write('d');
    await ui.waitForFrame((f) => f.includes('[y/N]'));
    expect(ui.frame()).toContain(`Delete session ${id} and its event log?`);
    ui.stdin.write('n');
    await ui.waitForFrame((f) => !f.includes('[y/N]'));
    expect(existsSync(join(ctx.env.ACODE_HOME!, 'sessions', id))).toBe(true);
    ui.stdin.write('d');
    await ui.waitForFrame((f) => f.includes('[y/N]'));
    ui.stdin.write('y');
    await ui.waitForFrame((f) => f.includes(`deleted session ${id.slice(0, 8)}`));
    expect(existsSync(join(ctx.env.ACODE_HOME!, 'sessions', id))).toBe(false);
    expect(store.getState().visible.map((r) => r.session_id)).not.toContain(id);
  });

  it('shows the help overlay on ? and hides it again', async () => {
    const { ui } = await open(3);
    ui.stdin.write('?');
    await ui.waitForFrame((f) => f.includes('Keys'));
    expect(ui.frame()).toContain('fuzzy search id, name, workflow, variables, directory and last response');
    expect(ui.frame()).toMatch(/Tab +cycle filters: all, resumable, running, paused, completed, failed/);
    ui.stdin.write('?');
    await ui.waitForFrame((f) => !f.includes('? or Esc closes this help'));
  });

  it('quits on q', async () => {
    const { ui, store } = await open(3);
    ui.stdin.write('q');
    await ui.waitForFrame(() => store.getState().quit);
  });

  it('lists a damaged session among 1,000 good ones instead of hiding it or failing', async () => {
    const fixture = generatedStore(1000);
    const bad = fixture.ids[500]!;
    writeFileSync(join(fixture.ctx.env.ACODE_HOME!, 'sessions', bad, 'session.json'), '{"schemaVersion": 1, "session_id": tor');
    writeFileSync(indexBasePath(fixture.ctx.env.ACODE_HOME!), 'not json'); // and the index must be rebuilt
    const rows = (await createSessionSource(fixture.ctx)).initial.rows;
    expect(rows).toHaveLength(1000);
    expect(rows.filter((r) => r.damaged)).toEqual([expect.objectContaining({ session_id: bad, damaged: 'session.json is not valid JSON', workflow_name: '(damaged)' })]);
  });
});
