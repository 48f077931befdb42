import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { createBrowserStore } from '../../source/state/browser-store.js';
import { handleTyped } from '../../source/ui/browser/browser-keys.js';
import { generatedStore } from '../helpers/browser-fixture.js';

/** A browser store with every row loaded, and a way to type a chunk into it as Ink delivers one. */
async function browser(count = 30) {
  const fixture = generatedStore(count);
  const source = await createSessionSource(fixture.ctx);
  const store = createBrowserStore(source, fixture.cwd);
  const rows = await source.poll();
  if (rows) store.getState().replaceRows(rows);
  return { ...fixture, store, type: (chunk: string) => handleTyped(store, chunk, { ctrl: false }) };
}

describe('keys that arrive as one chunk (typed while the browser was busy)', () => {
  it('act one at a time, as typed', async () => {
    const { store, type } = await browser();
    type('jjjk');
    expect(store.getState().selected).toBe(2);
    type('j\t');
    expect(store.getState()).toMatchObject({ selected: 0, filter: 'resumable' });
  });

  it('type a search with its corrections and Enter, then move in the results', async () => {
    const { store, type } = await browser();
    type('/postgrex\u007fs\rj');
    expect(store.getState()).toMatchObject({ query: 'postgres', searching: false, selected: 1 });
    expect(store.getState().visible[0]!.variables.topic).toBe('postgres');
    handleTyped(store, '', { ctrl: false, escape: true }); // clears the kept query
    type('/');
    type('xyz\u007f\u007f\u007fdurable');
    expect(store.getState()).toMatchObject({ query: 'durable', searching: true });
    type('\rj');
    expect(store.getState()).toMatchObject({ query: 'durable', searching: false, selected: 1 });
  });

  it('never answer the question a key in the same chunk asked: "dy" asks to delete and deletes nothing', async () => {
    const { store, type, ids, ctx } = await browser();
    const selected = join(ctx.env.ACODE_HOME!, 'sessions', ids.at(-1)!);
    type('dy');
    expect(store.getState().overlay).toMatchObject({ kind: 'confirm', action: 'delete', id: ids.at(-1) });
    type('n');
    type('d\rjj');
    expect(store.getState()).toMatchObject({ overlay: { kind: 'confirm', action: 'delete' }, selected: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(existsSync(selected)).toBe(true);
  });

  it('clear a message shown, and still act: a move, or text typed into a search', async () => {
    const { store, type, ids } = await browser();
    type('u'); // the selected session holds no lock: a message says so
    expect(store.getState().message).toBe(`session ${ids.at(-1)!.slice(0, 8)} is not locked`);
    type('j');
    expect(store.getState()).toMatchObject({ message: null, selected: 1 });
    type('/');
    store.setState({ message: 'cannot read the sessions: EIO' }); // as a failed background read says it
    type('kube'); // one chunk of search text, typed while the message showed
    expect(store.getState()).toMatchObject({ message: null, searching: true, query: 'kube' });
  });

  it('stop at Ctrl+C, which closes the browser', async () => {
    const { store, type } = await browser();
    type('j\u0003jj');
    expect(store.getState()).toMatchObject({ quit: true, selected: 1 });
  });
});
