import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import chalk from 'chalk';
import { render } from 'ink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionSource } from '../../source/commands/browser-source.js';
import { createBrowserStore, type BrowserStore } from '../../source/state/browser-store.js';
import { BrowserApp } from '../../source/ui/browser/browser-app.js';
import { tableRowsFor } from '../../source/ui/browser/browser-lines.js';
import { paintFirstFrame } from '../../source/ui/browser/first-paint.js';
import { generatedStore } from '../helpers/browser-fixture.js';
import { fakeTerminal } from '../helpers/fake-terminal.js';
import { screenOf } from '../helpers/terminal-screen.js';

const now = Date.parse('2026-02-01T00:00:00Z');

/** The frame Ink draws for the store as it stands. */
function inkFrame(store: BrowserStore, columns: number, rows: number): string {
  // In debug mode Ink writes each whole frame.
  const { stdout, stdin } = fakeTerminal(columns, rows);
  const instance = render(<BrowserApp store={store} now={now} />, { stdout: stdout as never, stdin: stdin as never, debug: true, exitOnCtrlC: false, patchConsole: false });
  const frame = stdout.writes.at(-1)!;
  instance.unmount();
  return frame;
}

/** The browser as `acode` opens it, before Ink: the store from the first rows, sized for the terminal. */
async function firstStore(fixture: ReturnType<typeof generatedStore>, rows: number) {
  const store = createBrowserStore(await createSessionSource(fixture.ctx), fixture.cwd);
  store.getState().setPageSize(tableRowsFor(rows));
  return store;
}

async function expectSameScreen(fixture: ReturnType<typeof generatedStore>, columns: number, rows: number, prepare?: (store: BrowserStore) => void) {
  const store = await firstStore(fixture, rows);
  prepare?.(store);
  const painted = paintFirstFrame(store.getState(), { columns, rows }, now);
  expect(painted).not.toBeNull();
  const ink = inkFrame(store, columns, rows);
  const screen = await screenOf(painted!, columns, rows);
  expect(screen).toEqual(await screenOf(ink, columns, rows));
  // As in the terminal: Ink's first frame is written over the painted one, from the top-left corner.
  expect(await screenOf(`${painted!}\u001B[H${ink}`, columns, rows)).toEqual(screen);
  return { text: screen.text, store };
}

describe('the first frame painted before Ink loads', () => {
  const level = chalk.level;
  beforeAll(() => {
    chalk.level = 1; // colours on, so that they are compared too
  });
  afterAll(() => {
    chalk.level = level;
  });

  it('is cell for cell the frame Ink draws: header, table, details and keys', async () => {
    const { text: screen } = await expectSameScreen(generatedStore(40), 120, 40);
    expect(screen[0]).toContain('40 sessions');
    expect(screen.some((row) => row.includes('❯'))).toBe(true);
    expect(screen.at(-1)).toContain('Enter');
  });

  it('is the same for a large store drawn from the index head, with the rows still to load counted', async () => {
    const { text: screen, store } = await expectSameScreen(generatedStore(900, { hereEvery: 3 }), 100, 30);
    expect(store.getState().whole).not.toBeNull(); // drawn from the head: most rows not loaded yet
    expect(store.getState().set.rows.length).toBeLessThan(300);
    expect(screen.join('\n')).toContain(`▼ ${300 - store.getState().pageSize} more`);
    expect(screen[1]).toContain('300 shown');
  });

  it('is the same in a narrow terminal, where lines are cut at the edge', async () => {
    await expectSameScreen(generatedStore(30), 64, 20);
  });

  it.each([60, 70, 80])('is the same at %i columns, where columns drop, with a search highlighted and a message wrapped', async (columns) => {
    const { text: screen } = await expectSameScreen(generatedStore(30), columns, 24, (store) => {
      store.getState().typeSearch('review');
      store.setState({ message: 'session 0f802af1 is running in pid 4242 on host build-box-7 (heartbeat 1s ago) — it cannot be resumed while that process runs; follow it there, or press Enter again once it has stopped' });
    });
    expect(screen.join('\n')).toContain('code-review');
    expect(screen.join('\n')).toContain('host build-box-7');
  });

  it('is the same with wide characters in the last response', async () => {
    const fixture = generatedStore(12);
    const file = join(fixture.ctx.env.ACODE_HOME!, 'sessions', fixture.ids.at(-1)!, 'session.json');
    const record = JSON.parse(readFileSync(file, 'utf8')) as { checkpoint: { last_response_preview: string } };
    record.checkpoint.last_response_preview = `要約：エージェントは計画を立てる 🚀 ${'長い文章が続きます。'.repeat(12)}`;
    writeFileSync(file, JSON.stringify(record));
    await expectSameScreen(fixture, 100, 24);
  });

  it('is the same for a damaged session, and for a store with no sessions', async () => {
    const damaged = generatedStore(5);
    writeFileSync(join(damaged.ctx.env.ACODE_HOME!, 'sessions', damaged.ids.at(-1)!, 'session.json'), '{ torn');
    const { text: screen } = await expectSameScreen(damaged, 100, 24);
    expect(screen.join('\n')).toContain('damaged');
    await expectSameScreen(generatedStore(0), 100, 24);
  });

  it('is the same in a short terminal, which goes without the details pane', async () => {
    await expectSameScreen(generatedStore(10), 100, 10);
  });

  it('is left to Ink when the layout does not fit the screen', async () => {
    const store = await firstStore(generatedStore(10), 7);
    expect(paintFirstFrame(store.getState(), { columns: 100, rows: 7 }, now)).toBeNull();
  });
});
