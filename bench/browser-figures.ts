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
import { atBenchExit } from './bench-exit.js';
import { median } from './median.js';
import { descendantsOf, trackTree } from './process-tree.js';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
const floorApp = fileURLToPath(new URL('./ink-floor.js', import.meta.url));
const frameClock = fileURLToPath(new URL('./frame-clock.js', import.meta.url));

export interface BrowserFigures {
  sessions: number;
  floorMs: number;
  firstFrameMs: number;
  /** From spawning it until a key pressed at the first frame is answered: React and Ink loaded. */
  firstKeyMs: number;
  nodeStart: { asIs: number; withoutExtraCerts: number };
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

/** The process acode titles itself `acode`, among those `script` runs in its pty. */
function acodeIn(pids: readonly number[]): number | undefined {
  return pids.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'acode';
    } catch {
      return false;
    }
  });
}

interface Frame {
  /** From spawning the pty until the frame is read from it. */
  ms: number;
  /** From the node process's start until it wrote the frame. */
  inProcessMs: number;
  /** From spawning the pty until a key pressed at the first frame was answered (NaN without a key). */
  answeredMs: number;
  /** The highest in the 0.6 s after the key was answered (else at the first frame). */
  rssMb: number;
}

/** A key to press as soon as the first frame is read, and how its answer shows in the output. */
interface KeyProbe {
  key: string;
  answered: (out: string) => boolean;
}

/**
 * A program in a pseudo-terminal (util-linux script): its first frame's times and, with a probe,
 * when a key pressed at once was answered — and RSS then.
 */
function firstFrame(home: string, cwd: string, program: string, marker: string, ready: (out: string) => boolean, probe?: KeyProbe): Promise<Frame> {
  const clockFile = join(home, '..', 'frame-clock.txt');
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const env = { ...process.env, ACODE_HOME: home, TERM: 'xterm-256color', ACODE_BENCH_FRAME_FILE: clockFile, ACODE_BENCH_FRAME_MARKER: marker };
    // script runs the program in a session of its own: its tree is noted while it lives and killed
    // whatever happens, so that no pty outlives its measurement (one once ran on for minutes). If the
    // bench itself is killed (SIGKILL runs no handler), timeout(1) still ends script within a minute,
    // and the pty's hangup ends the program.
    const child = spawn('timeout', ['-s', 'KILL', '60', 'script', '-qfec', `stty cols 120 rows 40; node --import ${frameClock} ${program}`, '/dev/null'], { cwd, env });
    const tree = trackTree(child.pid!);
    let out = '';
    let ms = Number.NaN;
    let done = false;
    let exited = false;
    const end = (settle: () => void) => {
      clearTimeout(deadline);
      tree.reap();
      settle();
    };
    const finish = async (answeredMs: number) => {
      done = true;
      tree.note();
      // RSS peaks as every row loads right after Ink's first frame: its highest in the next 0.6 s.
      const pid = acodeIn(descendantsOf(child.pid!));
      let rssMb = pid ? vmRss(pid) : Number.NaN;
      for (let t = 0; probe && pid && t < 30; t++) {
        await new Promise((wake) => setTimeout(wake, 20));
        rssMb = Math.max(rssMb, vmRss(pid));
      }
      const result = () => ({ ms, answeredMs, inProcessMs: Number(readFileSync(clockFile, 'utf8')), rssMb });
      // The next run starts once this one has exited, so that runs never compete for the CPU (in a
      // large store the browser first reconciles and compacts the index: it may take seconds).
      if (exited) return end(() => resolve(result()));
      clearTimeout(deadline);
      deadline = setTimeout(() => end(() => reject(new Error('the browser did not quit within 30 s of q'))), 30_000);
      child.once('exit', () => end(() => resolve(result())));
      child.stdin.write('q');
    };
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (done) return;
      if (Number.isNaN(ms)) {
        if (!ready(out)) return;
        ms = performance.now() - start;
        out = '';
        if (!probe) return void finish(Number.NaN);
        child.stdin.write(probe.key);
      }
      if (probe?.answered(out)) void finish(performance.now() - start);
    });
    child.stdin.on('error', () => undefined); // the floor app exits by itself
    child.once('exit', () => (exited = true));
    child.on('error', (error) => end(() => reject(error)));
    // A frame never drawn, or a program that does not quit on 'q': the tree is killed and the figure fails.
    let deadline = setTimeout(() => end(() => reject(new Error(`no first frame within 10 s; output: ${out.slice(-500)}`))), 10_000);
  });
}

/** Median wall time of `node -e 0` with this environment, and without NODE_EXTRA_CA_CERTS (node reads those certificates at start). */
function nodeStartMs(): { asIs: number; withoutExtraCerts: number } {
  const time = (env: NodeJS.ProcessEnv) =>
    median(
      Array.from({ length: 7 }, () => {
        const start = performance.now();
        spawnSync(process.execPath, ['-e', '0'], { env });
        return performance.now() - start;
      }),
    );
  const { NODE_EXTRA_CA_CERTS: _certs, ...withoutCerts } = process.env;
  return { asIs: time(process.env), withoutExtraCerts: time(withoutCerts) };
}

/**
 * The browser's first frame in homes already generated, taking turns run by run: medians over
 * `rounds` runs in a pty each, after one round that warms the page cache.
 */
export async function browserFirstFrames(homes: readonly string[], cwd: string, rounds = 7): Promise<Array<{ ms: number; inProcessMs: number }>> {
  const frames = homes.map((): Frame[] => []);
  for (let round = 0; round <= rounds; round++) {
    for (const [i, home] of homes.entries()) {
      const frame = await firstFrame(home, cwd, cli, '❯', (out) => out.includes('sessions ·') && out.includes('❯'));
      if (round > 0) frames[i]!.push(frame);
    }
  }
  return frames.map((each) => ({ ms: median(each.map((f) => f.ms)), inProcessMs: median(each.map((f) => f.inProcessMs)) }));
}

/** The browser's figures with `count` sessions in ACODE_HOME. */
export async function browserFigures(count = 10_000): Promise<BrowserFigures> {
  const root = mkdtempSync(join(tmpdir(), 'acode-bench-browser-'));
  const removed = atBenchExit(() => rmSync(root, { recursive: true, force: true }));
  try {
    const home = join(root, 'home');
    const cwd = join(root, 'project');
    mkdirSync(cwd);
    const { ids } = generateSessions(home, count, (i) => (i % 3 === 0 ? cwd : `/work/project-${i % 40}`));
    // The newest sessions of this directory, newest first: `j` at the first frame selects the second.
    const here = ids.filter((_, i) => i % 3 === 0).reverse();
    const down: KeyProbe = { key: 'j', answered: (out) => out.includes(`❯ ${here[1]!.slice(0, 8)}`) };

    spawnSync('sync'); // the generated files are on disk, as a real store's are: no write-back during the runs
    // acode and the floor take turns, so that both see the machine in the same mood.
    const frames: Frame[] = [];
    const floor: Frame[] = [];
    for (let i = 0; i < 8; i++) {
      frames.push(await firstFrame(home, cwd, cli, '❯', (out) => out.includes('sessions ·') && out.includes('❯'), down));
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
      firstKeyMs: median(frames.map((f) => f.answeredMs)),
      nodeStart: nodeStartMs(),
      inProcessMs: median(frames.map((f) => f.inProcessMs)),
      rssMb: median(frames.map((f) => f.rssMb)),
      keyToFrameMs: median(keys),
      searchMs: median(searches),
    };
  } finally {
    removed();
    rmSync(root, { recursive: true, force: true });
  }
}
