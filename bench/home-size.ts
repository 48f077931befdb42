import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSpec } from './bench-spec.js';
import { median } from './median.js';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));

export interface HomeRun {
  sessions: number;
  /** Median wall time of `acode run` on a 3-step scripted chain, whole process. */
  runMs: number;
  /** Median of the highest resident memory of that process. */
  maxRssMb: number;
}

/** One `acode run` of `spec.yaml` in `cwd` with ACODE_HOME=home: wall time and highest RSS (GNU time's %M, in KB). */
function runOnce(home: string, cwd: string): { ms: number; rssMb: number } {
  const rssFile = join(cwd, 'max-rss.txt');
  const start = performance.now();
  // GNU time measures the node process itself; its own start (a few ms, the same in every home) is in the wall time.
  const result = spawnSync('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, cli, 'run', 'spec.yaml'], {
    cwd,
    env: { ...process.env, ACODE_HOME: home },
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`acode run in a home of ${home} failed (${result.status ?? result.signal}): ${result.stderr}`);
  return { ms, rssMb: Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) / 1024 };
}

/**
 * Whole-process wall time of a 3-step scripted run in each of `homes` (generated beforehand), the
 * homes taking turns run by run so that each sees the machine in the same mood. The first round
 * warms the page cache and is left out. Each run adds its session to its home.
 */
export function runsInHomes(root: string, homes: ReadonlyArray<{ home: string; sessions: number }>, rounds = 11): HomeRun[] {
  const cwd = join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'spec.yaml'), benchSpec(3));
  const times = homes.map(() => ({ ms: [] as number[], rss: [] as number[] }));
  for (let round = 0; round <= rounds; round++) {
    homes.forEach(({ home }, i) => {
      const run = runOnce(home, cwd);
      if (round === 0) return;
      times[i]!.ms.push(run.ms);
      times[i]!.rss.push(run.rssMb);
    });
  }
  return homes.map(({ sessions }, i) => ({ sessions, runMs: median(times[i]!.ms), maxRssMb: median(times[i]!.rss) }));
}
