import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recoverProgress } from '../../source/engine/replay-check.js';
import { readEventLog } from '../../source/store/event-log.js';
import { sessionRecordSchema } from '../../source/store/session-record.js';
import { startCli, type CliResult } from './cli.js';
import { tempDir } from './temp-dir.js';

/** Shared by the lock-race e2e tests: a chain whose steps write files, real CLI processes, seeded chance. */

export const steps = 8;

/** Every step writes f<n>.txt through file_write, then answers: two model calls of `latencyMs`. */
export function writingSpec(latencyMs: number): string {
  return [
    'version: 0',
    'name: fencing',
    'runtime:',
    '  provider: scripted',
    '  model_id: m',
    '  scripted:',
    `    latency_ms: ${latencyMs}`,
    '    responses:',
    '      worker: { tool_calls: [ { name: file_write, args: { path: "f{{ n }}.txt", content: "step {{ n }}" } } ], then: "step {{ n }} done" }',
    'tools:',
    '  python: [strands_tools.file_write.file_write]',
    'agents:',
    '  worker: { prompt: "You write files." }',
    'pattern:',
    '  type: chain',
    '  config:',
    '    steps:',
    ...Array.from({ length: steps }, (_, n) => `      - { agent: worker, input: "Step ${n}", vars: { n: ${n} } }`),
    '',
  ].join('\n');
}

/** A working folder with the spec and a project config setting the lock timeout; a fresh ACODE_HOME. */
export function workspace(latencyMs: number, lockTimeoutSeconds: number) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  writeFileSync(join(cwd, 'spec.yaml'), writingSpec(latencyMs));
  mkdirSync(join(cwd, '.acode'));
  writeFileSync(join(cwd, '.acode/config.yml'), `resume:\n  lock_timeout_seconds: ${lockTimeoutSeconds}\n`);
  return { cwd, home, env: { ACODE_HOME: home } };
}

export type Workspace = ReturnType<typeof workspace>;

/** A CLI process whose stderr can be awaited line by line. */
export class Proc {
  readonly run;
  stderr = '';
  result?: CliResult;
  private readonly waiters = new Set<() => void>();

  constructor(args: string[], ws: Workspace) {
    this.run = startCli(args, ws);
    this.run.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      for (const wake of this.waiters) wake();
    });
    void this.run.done.then((result) => {
      this.result = result;
      for (const wake of this.waiters) wake();
    });
  }

  get pid(): number {
    return this.run.child.pid!;
  }

  /** True once stderr matches; false if the process ends first. */
  until(pattern: RegExp): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        if (pattern.test(this.stderr)) finish(true);
        else if (this.result) finish(false);
      };
      const finish = (value: boolean) => {
        this.waiters.delete(check);
        resolve(value);
      };
      this.waiters.add(check);
      check();
    });
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.result) this.run.child.kill(signal);
  }
}

/** A small seeded generator: a failing round can be replayed with the printed seed. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once the lock's heartbeat is older than the timeout (or the lock is gone). */
export async function lockGoesStale(dir: string, timeoutMs: number): Promise<void> {
  for (;;) {
    let heartbeat: number;
    try {
      heartbeat = Date.parse((JSON.parse(readFileSync(join(dir, 'lock'), 'utf8')) as { heartbeat_at: string }).heartbeat_at);
    } catch {
      return;
    }
    const left = heartbeat + timeoutMs + 30 - Date.now();
    if (left <= 0) return;
    await pause(left);
  }
}

/** The replay check a resume runs, from the files as they are now: it must never refuse. */
export function checkReplayable(dir: string): void {
  // session.json first: the log read after it is at least as far along.
  const record = sessionRecordSchema.parse(JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8')));
  recoverProgress(readEventLog(join(dir, 'events.jsonl')), record.checkpoint);
}
