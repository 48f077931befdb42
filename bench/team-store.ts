import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPostgres, startPostgres, type PostgresCluster } from '../scripts/postgres-cluster.js';
import { eventBatchSize } from '../source/store/remote/replicator.js';
import { remotePageSize, remoteSessionPages } from '../source/store/remote/remote-sessions.js';
import { connectRemote } from '../source/store/remote/remote-client.js';
import { remoteTarget } from '../source/store/remote/remote-url.js';
import { requireCurrentSchema } from '../source/store/remote/schema-migrate.js';
import { benchSpec } from './bench-spec.js';
import { median } from './median.js';
import { remoteSync } from './remote-sync.js';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));

export interface TeamStoreFigures {
  sync: { events: number; batch: number; syncMs: number; eventsPerS: number; idleMs: number };
  steps: { steps: number; runs: number; withMs: number; withoutMs: number; ratio: number; withRounds: number[]; withoutRounds: number[] };
  listing: { sessions: number; page: number; firstPageMs: number; firstPageRounds: number[]; versionMs: number; queryMs: number; limitMs: number; wholeMs: number };
}

/** The step phase of a whole-process run, per step: its first step_started to its last step_completed, from the log's stamps. */
function stepPhasePerStep(home: string, steps: number): number {
  const [id] = readdirSync(join(home, 'sessions')).filter((name) => /^[0-9a-f]{16}$/.test(name));
  const events = readFileSync(join(home, 'sessions', id!, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; ts: string });
  const first = Date.parse(events.find((e) => e.type === 'step_started')!.ts);
  const last = Date.parse(events.filter((e) => e.type === 'step_completed').at(-1)!.ts);
  return (last - first) / steps;
}

/** `acode run` of an `steps`-step scripted chain as a whole process, in a fresh home: its step phase per step. */
function runOnce(dir: string, steps: number, env: NodeJS.ProcessEnv): number {
  const home = mkdtempSync(join(dir, 'home-'));
  const result = spawnSync(process.execPath, [cli, 'run', 'spec.yaml', '--json', '--force'], { cwd: dir, env: { ...env, ACODE_HOME: home }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`acode run failed: ${result.stderr}`);
  const perStep = stepPhasePerStep(home, steps);
  rmSync(home, { recursive: true, force: true });
  return perStep;
}

export type StepCostFigures = TeamStoreFigures['steps'];

/**
 * Per-step cost: `runs` runs of a `steps`-step scripted chain with a store configured (`url`) and
 * as many without, taking turns (the machine's speed drifts; which goes first alternates too), after
 * one warm-up run; medians of each.
 */
export function stepCost(dir: string, url: string, steps: number, runs: number): StepCostFigures {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  writeFileSync(join(dir, 'spec.yaml'), benchSpec(steps));
  const withRounds: number[] = [];
  const withoutRounds: number[] = [];
  runOnce(dir, steps, base); // warms the disk cache and node's compile cache
  for (let i = 0; i < runs; i++) {
    const without = () => withoutRounds.push(runOnce(dir, steps, base));
    const withStore = () => withRounds.push(runOnce(dir, steps, { ...base, ACODE_REMOTE_URL: url }));
    if (i % 2 === 0) {
      without();
      withStore();
    } else {
      withStore();
      without();
    }
  }
  const withMs = median(withRounds);
  const withoutMs = median(withoutRounds);
  return { steps, runs, withMs, withoutMs, ratio: withMs / withoutMs, withRounds, withoutRounds };
}

/**
 * `node dist/bench.js team-steps [runs] [steps]`: the per-step cost alone, against a throwaway cluster.
 */
export async function teamStepFigures(runs: number, steps: number): Promise<StepCostFigures | string> {
  const found = findPostgres();
  if ('missing' in found) return `skipped: ${found.missing}`;
  const cluster = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'acode-bench-steps-'));
  try {
    cluster.psql('CREATE DATABASE bench');
    const url = cluster.url('bench');
    const init = spawnSync(process.execPath, [cli, 'remote', 'init'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ACODE_HOME: join(dir, 'init-home'), ACODE_REMOTE_URL: url }, encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`acode remote init failed: ${init.stderr}`);
    return stepCost(dir, url, steps, runs);
  } finally {
    await cluster.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Wall time until the process first writes to stdout (the first page of a listing), and until it exits. */
function firstOutput(args: string[], env: NodeJS.ProcessEnv): Promise<{ firstMs: number; wholeMs: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let firstMs: number | undefined;
    const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.on('data', () => (firstMs ??= performance.now() - start));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => (code === 0 && firstMs !== undefined ? resolve({ firstMs, wholeMs: performance.now() - start }) : reject(new Error(`acode ${args.join(' ')} failed: ${stderr}`))));
  });
}

/**
 * `node dist/bench.js team`: the team store's figures against a throwaway PostgreSQL cluster (as
 * the tests start one): sync throughput, a run's per-step cost with a store configured and without,
 * and `sessions list --remote` over 100,000 sessions. A string (why) when PostgreSQL is not installed.
 */
export async function teamStoreFigures(options: { events?: number; steps?: number; runs?: number; sessions?: number } = {}): Promise<TeamStoreFigures | string> {
  const found = findPostgres();
  if ('missing' in found) return `skipped: ${found.missing}`;
  const cluster: PostgresCluster = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'acode-bench-team-'));
  try {
    cluster.psql('CREATE DATABASE bench');
    const url = cluster.url('bench');
    const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

    const events = options.events ?? 20_000;
    const synced = await remoteSync(events, url);
    if (typeof synced === 'string') throw new Error(synced);

    const steps = stepCost(dir, url, options.steps ?? 200, options.runs ?? 7);

    // The listing: 100,000 sessions in the store, from as many machines as names, each updated at another time.
    const sessions = options.sessions ?? 100_000;
    cluster.psql(
      `INSERT INTO acode_sessions (id, name, workflow, status, pattern_type, steps_done, steps_total, tokens_input, tokens_output, created_at, host, updated_at)
       SELECT lpad(to_hex(i), 16, '0'), NULL, 'bench-' || (i % 40), (ARRAY['completed', 'paused', 'running', 'failed'])[1 + i % 4], 'chain', i % 10, 10, i * 3, i * 2,
              now() - make_interval(secs => i), 'host-' || (i % 25), now() - make_interval(secs => i)
       FROM generate_series(1, ${sessions}) AS i;
       ANALYZE acode_sessions;`,
      'bench',
    );
    const home = mkdtempSync(join(dir, 'list-home-'));
    const env = { ...base, ACODE_HOME: home, ACODE_REMOTE_URL: url };
    const firstPageRounds: number[] = [];
    const versionRounds: number[] = [];
    let wholeMs = 0;
    for (let i = 0; i < 5; i++) {
      firstPageRounds.push((await firstOutput(['sessions', 'list', '--remote'], env)).firstMs);
      // The floor in the same rounds: node starting acode and printing its version.
      versionRounds.push((await firstOutput(['--version'], env)).firstMs);
    }
    // The store's part, in this process: a connection, the schema check, the first page's query.
    const queryRounds: number[] = [];
    const target = remoteTarget(home, dir, env)!;
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      const db = await connectRemote(target);
      await requireCurrentSchema(db, target.shown);
      await remoteSessionPages(db, { lockTimeoutMs: 60_000 }).next();
      queryRounds.push(performance.now() - start);
      await db.close();
    }
    wholeMs = (await firstOutput(['sessions', 'list', '--remote', '--json'], env)).wholeMs;
    const limitRounds: number[] = [];
    for (let i = 0; i < 5; i++) limitRounds.push((await firstOutput(['sessions', 'list', '--remote', '--limit', '50'], env)).wholeMs);
    return {
      sync: { events, batch: eventBatchSize, ...synced },
      steps,
      listing: { sessions, page: remotePageSize, firstPageMs: median(firstPageRounds), firstPageRounds, versionMs: median(versionRounds), queryMs: median(queryRounds), limitMs: median(limitRounds), wholeMs },
    };
  } finally {
    await cluster.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}
