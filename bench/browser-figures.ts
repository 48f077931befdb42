import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { createSessionSource } from '../source/commands/browser-source.js';
import type { CommandContext } from '../source/commands/command-context.js';
import { visibleRows } from '../source/state/browser-rows.js';
import { createBrowserStore } from '../source/state/browser-store.js';
import { BrowserApp } from '../source/ui/browser/browser-app.js';
import { generateSessions } from './generate-sessions.js';
import { median } from './median.js';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
const floorApp = fileURLToPath(new URL('./ink-floor.js', import.meta.url));
const frameClock = fileURLToPath(new URL('./frame-clock.js', import.meta.url));

export interface BrowserFigures {
  sessions: number;
  floorMs: number;
  firstFrameMs: number;
  /** From the node process's own start until it writes the frame (no pty, shell or spawn). */
  inProcessMs: number;
  floorInProcessMs: number;
  rssMb: number;
  keyToFrameMs: number;
  searchMs: number;
}

function vmRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:')) ?? '';
  return Number(/(\d+)/.exec(line)?.[1] ?? 0) / 1024;
}

/** The process under `script` and its shell: acode titles itself `acode`, so the newest one is it. */
function acodePid(): number | undefined {
  const found = spawnSync('pgrep', ['-n', '-x', 'acode'], { encoding: 'utf8' }).stdout.trim();
  return found ? Number(found) : undefined;
}

interface Frame {
  /** From spawning the pty until the frame is read from it. */
  ms: number;
  /** From the node process's start until it wrote the frame. */
  inProcessMs: number;
  rssMb: number;
}

/** A program in a pseudo-terminal (util-linux script): its first frame's times, and RSS then. */
function firstFrame(home: string, cwd: string, program: string, marker: string, ready: (out: string) => boolean): Promise<Frame> {
  const clockFile = join(home, '..', 'frame-clock.txt');
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const env = { ...process.env, ACODE_HOME: home, TERM: 'xterm-256color', ACODE_BENCH_FRAME_FILE: clockFile, ACODE_BENCH_FRAME_MARKER: marker };
    const child = spawn('script', ['-qfec', `stty cols 120 rows 40; node --import ${frameClock} ${program}`, '/dev/null'], { cwd, env });
    let out = '';
    let done = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (done || !ready(out)) return;
      done = true;
      const ms = performance.now() - start;
      const pid = acodePid();
      const rssMb = pid ? vmRss(pid) : Number.NaN;
      child.stdin.write('q');
      // The next run starts once this one has exited, so that runs never compete for the CPU.
      child.on('exit', () => resolve({ ms, inProcessMs: Number(readFileSync(clockFile, 'utf8')), rssMb }));
    });
    child.stdin.on('error', () => undefined); // the floor app exits by itself
    child.on('error', reject);
    setTimeout(() => {
      if (!done) reject(new Error(`no first frame within 10 s; output: ${out.slice(-500)}`));
      child.kill('SIGKILL');
    }, 10_000).unref();
  });
}

/** The browser's figures with `count` sessions in ACODE_HOME. */
export async function browserFigures(count = 10_000): Promise<BrowserFigures> {
  const root = mkdtempSync(join(tmpdir(), 'acode-bench-browser-'));
  try {
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    mkdirSync(cwd);
    generateSessions(home, count, (i) => (i % 3 === 0 ? cwd : `/work/project-${i % 40}`));

    spawnSync('sync'); // the generated files are on disk, as a real store's are: no write-back during the runs
    // acode and the floor take turns, so that both see the machine in the same mood.
    const frames: Frame[] = [];
    const floor: Frame[] = [];
    for (let i = 0; i < 8; i++) {
      frames.push(await firstFrame(home, cwd, cli, '❯', (out) => out.includes('sessions ·') && out.includes('❯')));
      floor.push(await firstFrame(home, cwd, floorApp, 'row 29', (out) => out.includes('row 29')));
    }
    frames.shift(); // the first runs warm the page cache
    floor.shift();

    const ctx = { env: { ACODE_HOME: home }, cwd } as unknown as CommandContext;
    const source = await createSessionSource(ctx);
    const store = createBrowserStore(source, cwd);
    const app = render(createElement(BrowserApp, { store }));
    // As after the browser's first look at the disk: every row loaded, not only the head's.
    store.getState().replaceRows((await source.poll()) ?? source.initial.rows);
    if (store.getState().set.rows.length !== count) throw new Error(`the browser holds ${store.getState().set.rows.length} rows, not ${count}`);
    const keys: number[] = [];
    for (let i = 0; i < 60; i++) {
      const before = app.frames.length;
      const start = performance.now();
      app.stdin.write(i % 2 ? 'k' : 'j');
      while (app.frames.length === before) await new Promise((resolve) => setImmediate(resolve));
      keys.push(performance.now() - start);
    }
    app.unmount();

    const searches: number[] = [];
    const set = store.getState().set;
    for (const query of ['kubernetes', 'rate', 'findings 42', 'api-mig', 'zzzz', 'postgres', 'ink tui', 'durable']) {
      const start = performance.now();
      visibleRows(set, { scope: 'all', cwd, filter: 'all', query });
      searches.push(performance.now() - start);
    }
    return {
      sessions: count,
      floorMs: median(floor.map((f) => f.ms)),
      floorInProcessMs: median(floor.map((f) => f.inProcessMs)),
      firstFrameMs: median(frames.map((f) => f.ms)),
      inProcessMs: median(frames.map((f) => f.inProcessMs)),
      rssMb: median(frames.map((f) => f.rssMb)),
      keyToFrameMs: median(keys),
      searchMs: median(searches),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
