import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSpec } from './bench-spec.js';
import { median } from './median.js';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));

function wallMs(args: string[], cwd: string, env: NodeJS.ProcessEnv): { ms: number; status: number | null; stderr: string } {
  const start = performance.now();
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, env, encoding: 'utf8' });
  return { ms: performance.now() - start, status: result.status, stderr: result.stderr };
}

export interface ResumeFigures {
  runs: number;
  resumeMs: number;
  versionMs: number;
}

/** Whole-process wall time of `acode resume` on a 100-step session that crashed (kill -9) at step 98. */
export function resumeWall(runs = 11): ResumeFigures {
  const root = mkdtempSync(join(tmpdir(), 'acode-bench-resume-'));
  try {
    const home = join(root, 'home');
    const env = { ...process.env, ACODE_HOME: home };
    writeFileSync(join(root, 'spec.yaml'), benchSpec(100, '    faults:\n      - { step: 98, kind: crash }'));
    const crashed = spawnSync(process.execPath, [cli, 'run', 'spec.yaml'], { cwd: root, env, encoding: 'utf8' });
    if (crashed.signal !== 'SIGKILL') throw new Error(`the crash run did not die at step 98: ${crashed.stderr}`);
    const snapshot = join(root, 'snapshot');
    cpSync(home, snapshot, { recursive: true });
    const id = readdirSync(join(home, 'sessions'))[0]!;

    const times: number[] = [];
    const versions: number[] = [];
    for (let i = 0; i <= runs; i++) {
      rmSync(home, { recursive: true, force: true });
      cpSync(snapshot, home, { recursive: true });
      const result = wallMs(['resume', id, '--json'], root, env);
      if (result.status !== 0) throw new Error(`resume failed: ${result.stderr}`);
      if (i > 0) times.push(result.ms); // the first run warms the page cache
      versions.push(wallMs(['--version'], root, env).ms);
    }
    return { runs, resumeMs: median(times), versionMs: median(versions) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
