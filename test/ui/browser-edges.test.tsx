import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import chalk from 'chalk';
import { render } from 'ink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { createBrowserStore, type BrowserStart, type BrowserStore } from '../../source/state/browser-store.js';
import { BrowserApp } from '../../source/ui/browser/browser-app.js';
import { tableRowsFor } from '../../source/ui/browser/browser-lines.js';
import { generatedStore } from '../helpers/browser-fixture.js';
import { fakeTerminal } from '../helpers/fake-terminal.js';
import { keys, renderInk } from '../helpers/ink.js';
import { screenOf } from '../helpers/terminal-screen.js';

const now = Date.parse('2026-02-01T00:00:00Z');
const shiftTab = '\u001B[Z';
const selectedLine = (frame: string) => frame.split('\n').find((line) => line.includes('❯')) ?? '';

/** The browser as `acode` opens it (or reopens it, with `start`), every row loaded. */
async function open(fixture: ReturnType<typeof generatedStore>, start?: BrowserStart) {
  const source = await createSessionSource(fixture.ctx);
  const store = createBrowserStore(source, fixture.cwd, start);
  const ui = renderInk(<BrowserApp store={store} now={now} />);
  const rows = await source.poll();
  if (rows) store.getState().replaceRows(rows);
  return { ...fixture, store, ui };
}

/** The screen Ink draws for the store at a terminal size: rows of text, and of text with each cell's style. */
async function screenAt(store: BrowserStore, columns: number, rows: number) {
  store.getState().setPageSize(tableRowsFor(rows));
  const { stdout, stdin } = fakeTerminal(columns, rows);
  const instance = render(<BrowserApp store={store} now={now} />, { stdout: stdout as never, stdin: stdin as never, debug: true, exitOnCtrlC: false, patchConsole: false });
  const frame = stdout.writes.at(-1)!;
  instance.unmount();
  return screenOf(frame, columns, rows);
}

const plain = (styledRow: string) => styledRow.replace(/\[[^\]]*\]/g, '');

/** The characters of a styled screen row drawn underlined (a search's matches). */
function underlined(styledRow: string): string {
  return [...styledRow.matchAll(/(.)(?:\[([^\]]*)\])?/gu)].filter((m) => m[2]?.includes('u')).map((m) => m[1]).join('');
}

describe('Esc and q in the browser', () => {
  it('Esc closes the help and a question and clears the search, and never quits', async () => {
    const { ui, store, ids, ctx } = await open(generatedStore(20));
    ui.stdin.write('?');
    await ui.waitForFrame((f) => f.includes('? or Esc closes this help'));
    ui.stdin.write(keys.escape);
    await ui.waitForFrame((f) => !f.includes('? or Esc closes this help'));
    ui.stdin.write('d');
    await ui.waitForFrame((f) => f.includes('[y/N]'));
    ui.stdin.write(keys.escape);
    await ui.waitForFrame((f) => !f.includes('[y/N]'));
    expect(existsSync(join(ctx.env.ACODE_HOME!, 'sessions', ids.at(-1)!))).toBe(true);
    ui.stdin.write('/');
    ui.stdin.write('postgres\r');
    await ui.waitForFrame((f) => f.includes('/postgres  (/ to edit, Esc clears)'));
    ui.stdin.write(keys.escape);
    await ui.waitForFrame((f) => !f.includes('/postgres') && f.includes('20 shown'));
    const selected = store.getState().selected;
    ui.stdin.write(keys.escape); // nothing open: nothing happens
    ui.stdin.write('j');
    await ui.waitForFrame(() => store.getState().selected === selected + 1);
    expect(store.getState().quit).toBe(false);
  });

  it('q quits, even with a search kept', async () => {
    const { ui, store } = await open(generatedStore(10));
    ui.stdin.write('/');
    ui.stdin.write('zustand\r');
    await ui.waitForFrame((f) => f.includes('/zustand  (/ to edit'));
    ui.stdin.write('q');
    await ui.waitForFrame(() => store.getState().quit);
  });

  it('Shift+Tab cycles the filters backwards, Tab forwards', async () => {
    const { ui } = await open(generatedStore(20));
    ui.stdin.write(shiftTab);
    await ui.waitForFrame((f) => f.includes('filter failed'));
    ui.stdin.write(shiftTab);
    await ui.waitForFrame((f) => f.includes('filter completed'));
    ui.stdin.write('\t');
    await ui.waitForFrame((f) => f.includes('filter failed'));
    ui.stdin.write('\t');
    await ui.waitForFrame((f) => f.includes('filter all'));
  });

  it('lists Esc, q and Shift+Tab in the help as they act', async () => {
    const { ui } = await open(generatedStore(3));
    ui.stdin.write('?');
    const help = await ui.waitForFrame((f) => f.includes('Keys'));
    expect(help).toMatch(/Esc +close what is open, clear the search \(never quits\)/);
    expect(help).toMatch(/q Ctrl\+C +quit/);
    expect(help).toMatch(/Shift\+Tab +cycle filters backwards/);
    expect(help.split('\n').length).toBeLessThanOrEqual(30); // every key, and still the footer, in 30 rows
    expect(help.split('\n').at(-1)).toContain('↑↓ move');
  });
});

describe('the help in a terminal too short for every key', () => {
  it.each([
    [80, 24],
    [80, 16],
    [40, 10],
    [40, 8],
  ])('fits %i×%i: the header first, each line whole, how many keys it leaves out, how to close it, then the footer', async (columns, rows) => {
    const { store } = await open(generatedStore(3));
    store.getState().toggleHelp();
    const screen = (await screenAt(store, columns, rows)).text;
    // Ink squeezed a help taller than the terminal into it: lines drawn over one another, the header lost.
    expect(screen).toHaveLength(rows);
    expect(screen[0]).toMatch(/^acode /);
    expect(screen[1]).toMatch(/^filter /);
    expect(screen.at(-1)).toContain('↑↓ move');
    expect(screen.join('\n')).toMatch(/… \d+ more keys?: a taller terminal/);
    const closing = screen.findIndex((line) => line.includes('? or Esc closes this help'));
    expect(closing).toBeGreaterThan(2);
    expect(screen[closing + 1]).toMatch(/^╰─+╯$/);
  });
});

describe('the browser in a terminal too short for it', () => {
  it.each([7, 5, 2])('says at %i rows that it needs 8, in one line, instead of drawing lines over one another', async (rows) => {
    const { store } = await open(generatedStore(20));
    const screen = (await screenAt(store, 80, rows)).text;
    expect(screen[0]).toBe(`acode: ${rows} rows are too few: make the terminal 8 rows tall (q quits)`);
    expect(screen.slice(1).every((line) => line.trim() === '')).toBe(true);
  });

  it('draws the whole browser at 8 rows: header, one table row with its marker, the footer', async () => {
    const { store } = await open(generatedStore(20));
    const screen = (await screenAt(store, 80, 8)).text;
    expect(screen[0]).toMatch(/^acode /);
    expect(screen.filter((line) => line.startsWith('❯ '))).toHaveLength(1);
    expect(screen.at(-1)).toContain('↑↓ move');
  });
});

describe('a session another live process runs', () => {
  it('Enter shows its steps with where it runs (pid, host) over them, wrapped; r says so again instead of planning', async () => {
    const fixture = generatedStore(20);
    const id = fixture.ids.at(-1)!;
    const at = new Date().toISOString();
    // Held by a process on another host sharing this home: its heartbeat is fresh.
    writeFileSync(join(fixture.ctx.env.ACODE_HOME!, 'sessions', id, 'lock'), JSON.stringify({ pid: 4242, host: 'build-box-7', proc_start: null, started_at: at, heartbeat_at: at, token: 'elsewhere', epoch: 1 }));
    const { ui, store } = await open(fixture);
    ui.stdin.write(keys.enter);
    const frame = await ui.waitForFrame((f) => f.includes('running in pid 4242'));
    const lines = frame.split('\n');
    const first = lines.findIndex((line) => line.includes(`session ${id.slice(0, 8)} is running in pid 4242 on host build-box-7`));
    const message = lines.slice(first, first + 3).filter((line) => !/^ *(▲|$)/.test(line));
    expect(message.length).toBeGreaterThan(1); // wrapped, not cut
    expect(message.every((line) => line.length <= 100)).toBe(true);
    expect(message.join(' ')).toContain('it cannot be resumed while that process runs; follow it there, or press r again once it has stopped');
    expect(store.getState().stepView.getState().session?.id).toBe(id);
    ui.stdin.write('j'); // the next key clears it
    await ui.waitForFrame((f) => !f.includes('running in pid'));
    ui.stdin.write('r');
    await ui.waitForFrame((f) => f.includes('running in pid 4242'));
    expect(store.getState().overlay).toBeNull(); // no plan
    expect(store.getState().launch).toBeNull();
  });
});

describe('r on the steps of a session that has ended', () => {
  it('says why in its own words: completed, nothing left to resume, and how to run it again', async () => {
    const fixture = generatedStore(7);
    const { ui, store } = await open(fixture);
    ui.stdin.write('G'); // the oldest: generated completed
    await ui.waitForFrame(() => store.getState().selected === store.getState().visible.length - 1);
    const id = store.getState().visible.at(-1)!.session_id;
    expect(store.getState().visible.at(-1)!.status).toBe('completed');
    ui.stdin.write(keys.enter);
    await ui.waitForFrame(() => store.getState().stepView.getState().session?.id === id);
    ui.stdin.write('r');
    const frame = await ui.waitForFrame((f) => f.includes('nothing is left to resume'));
    expect(frame.replace(/\s+/g, ' ')).toContain(`session ${id.slice(0, 8)} completed: nothing is left to resume; 'acode fork ${id.slice(0, 8)}' starts a new session from its completed steps`);
    expect(frame).not.toContain('it runs in another process, or it has ended');
    expect(store.getState().overlay).toBeNull();
  });
});

describe('the table in a narrow terminal', () => {
  const level = chalk.level;
  beforeAll(() => {
    chalk.level = 1;
  });
  afterAll(() => {
    chalk.level = level;
  });

  const rowsOf = (text: string[]) => text.filter((line) => /^[ ❯] [0-9a-f]{8} /.test(line));

  it.each([
    [60, 'ID WORKFLOW STATUS STEPS', /\d+\/\d+$/],
    [70, 'ID WORKFLOW STATUS STEPS UPDATED', /\d+[smhd] ago$/],
    [80, 'ID WORKFLOW STATUS STEPS TOKENS UPDATED', /\d+[smhd] ago$/],
    [120, 'ID WORKFLOW STATUS STEPS TOKENS UPDATED DIRECTORY', /(project|…)$/],
  ])('drops whole columns at %i columns instead of cutting the rows', async (columns, head, lastCell) => {
    const fixture = generatedStore(20);
    const store = createBrowserStore(await createSessionSource(fixture.ctx), fixture.cwd);
    const { text } = await screenAt(store, columns, 24);
    expect(text.find((line) => line.includes('WORKFLOW'))!.trim().split(/ +/).join(' ')).toBe(head);
    const rows = rowsOf(text);
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      // Rows of one workflow are told apart by their variables where there is room (the directory shows).
      expect(row).toMatch(columns < 84 ? /^[ ❯] [0-9a-f]{8} [a-z-]+ +(completed|failed|paused|interrupted|cancelled|running) / : /^[ ❯] [0-9a-f]{8} [a-z-]+( · [a-z]+=[^…]+?)? +(completed|failed|paused|interrupted|cancelled|running) /);
      expect(row).toMatch(lastCell);
      if (columns < 84) expect(row).not.toContain('…');
    }
  });

  it('highlights the characters a search matched, in the id, workflow and directory', async () => {
    const fixture = generatedStore(24);
    const store = createBrowserStore(await createSessionSource(fixture.ctx), fixture.cwd);
    store.getState().typeSearch('review');
    const byWorkflow = (await screenAt(store, 100, 24)).styled.filter((line) => /^[ ❯] [0-9a-f]{8} code-review/.test(plain(line)));
    expect(byWorkflow.length).toBeGreaterThan(1); // the selected row (inverse) too
    for (const row of byWorkflow) expect(underlined(row)).toBe('review');

    const id = fixture.ids[7]!;
    store.getState().typeSearch(id.slice(0, 5));
    const selected = (await screenAt(store, 100, 24)).styled.find((line) => line.startsWith('❯'))!;
    expect(plain(selected)).toContain(id.slice(0, 8));
    expect(underlined(selected)).toBe(id.slice(0, 5));
  });
});

describe('the browser after a resume it started', () => {
  it('opens on that session with the filter, scope and search it had', async () => {
    const fixture = generatedStore(80);
    const id = fixture.ids[0]!; // completed, the oldest: far down the list
    const { ui, store } = await open(fixture, { id, filter: 'completed', scope: 'here', query: '', message: `the resume of ${id.slice(0, 8)} ended (exit 0)` });
    const frame = await ui.waitForFrame((f) => selectedLine(f).includes(id.slice(0, 8)));
    expect(frame).toContain(`the resume of ${id.slice(0, 8)} ended (exit 0)`);
    expect(frame).toContain('filter completed · scope this directory');
    expect(store.getState().selected).toBeGreaterThan(store.getState().pageSize); // scrolled to it
  });

  it('lets go of a filter or a search the session no longer passes, rather than lose it', async () => {
    const fixture = generatedStore(40);
    const id = fixture.ids[14]!;
    const { ui } = await open(fixture, { id, filter: 'failed', scope: 'here', query: 'nothing-matches-this', message: null });
    const frame = await ui.waitForFrame((f) => selectedLine(f).includes(id.slice(0, 8)));
    expect(frame).toContain('filter all · scope this directory · 40 shown');
    expect(frame).not.toContain('nothing-matches-this');
  });
});
