import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atBenchExit } from './bench-exit.js';
import { browserFirstFrames } from './browser-figures.js';
import { generateSessionsInTurns } from './generate-sessions.js';
import { runsInHomes, type HomeRun } from './home-size.js';

export interface HomeFigures {
  /** Where the homes were generated (ACODE_BENCH_DIR, else /dev/shm, else the system's temp folder). */
  dir: string;
  runs: HomeRun[];
  /** Seconds to write each generated home, and to remove them all at the end. */
  generateS: Array<{ sessions: number; s: number }>;
  removeS: number;
  /** The browser's first frame in each home (pty, medians). */
  firstFrames: Array<{ sessions: number; ms: number; inProcessMs: number }>;
}

const seconds = (since: number) => (performance.now() - since) / 1000;

/**
 * Where the homes go unless ACODE_BENCH_DIR says: /dev/shm (a RAM file system) when there is one.
 * On these machines a hundred thousand session folders take minutes to write and to remove on disk
 * when other work shares it, seconds in RAM; and without the disk's latency in every home, what
 * the store's size costs a run is all that differs between them.
 */
function benchDir(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/**
 * A 3-step run in homes of `sizes` generated sessions (written directly, not through acode), then
 * the browser's first frame in each; every home is removed at the end, whatever happens.
 */
export async function homeFigures(sizes: readonly number[] = [0, 10_000, 100_000]): Promise<HomeFigures> {
  const dir = process.env.ACODE_BENCH_DIR ?? benchDir();
  const root = mkdtempSync(join(dir, 'acode-bench-homes-'));
  const remove = () => rmSync(root, { recursive: true, force: true });
  const removed = atBenchExit(remove); // a hundred thousand sessions are not left behind by an interrupted bench
  const cwd = join(root, 'project');
  mkdirSync(cwd);
  try {
    const generateS: HomeFigures['generateS'] = [];
    const homes: Array<{ home: string; sessions: number }> = [];
    for (const sessions of sizes) {
      const home = join(root, `home-${sessions}`);
      const start = performance.now();
      // A third of the sessions ran in the project the runs and the browser start from.
      await generateSessionsInTurns(home, sessions, (i) => (i % 3 === 0 ? cwd : `/work/project-${i % 40}`));
      generateS.push({ sessions, s: seconds(start) });
      homes.push({ home, sessions });
    }
    spawnSync('sync'); // on disk, as a real store is: no write-back of the generated files during the runs
    const runs = runsInHomes(root, homes);
    const frames = await browserFirstFrames(homes.map((h) => h.home), cwd);
    const start = performance.now();
    remove();
    return { dir, runs, generateS, removeS: seconds(start), firstFrames: frames.map((frame, i) => ({ sessions: homes[i]!.sessions, ...frame })) };
  } finally {
    removed();
    remove();
  }
}
