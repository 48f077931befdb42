import { MemoryBlobStore } from '../source/engine/blob-store.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionExecutor } from '../source/engine/session-executor.js';
import { nullJournal, type Journal } from '../source/engine/journal.js';
import { initialProgress } from '../source/engine/session-progress.js';
import { mergeVariables } from '../source/engine/template-context.js';
import { createProvider } from '../source/providers/create-provider.js';
import { loadSpecText } from '../source/spec/load-spec.js';
import { realFileSync, type FileSync } from '../source/store/event-log.js';
import { SessionLock } from '../source/store/session-lock.js';
import { SessionStore } from '../source/store/session-store.js';
import { benchSpec } from './bench-spec.js';
import { syncFloor, type SyncFloor } from './fs-floor.js';
import { median, timeAsync } from './median.js';

interface Timing {
  /** Creating the session folder (spec snapshot, first checkpoint, index row): once per session. */
  createMs: number;
  /** The whole run, session start and completion (checkpoint, index row) included. */
  runMs: number;
  /** From the first step's start to the last step's completion: what each step costs. */
  stepsMs: number;
  /** fdatasyncs of the event log during the run, and checkpoints written (each a temp file's fdatasync and a directory fsync). */
  logSyncs: number;
  checkpoints: number;
}

/**
 * One in-process run of an N-step chain, with a durable session as `acode run` keeps it (session
 * lock held, journal guarded by it) or with none (--no-save-session).
 */
async function runOnce(steps: number, withSession: boolean, home: string, cwd: string, text = benchSpec(steps)): Promise<Timing> {
  const { spec } = loadSpecText(text, 'bench.yaml');
  const variables = mergeVariables(spec, {});
  let sessionId = 'unsaved';
  let journal: Journal = nullJournal;
  let epoch = 0;
  let logSyncs = 0;
  let checkpoints = () => 0;
  let close = () => {};
  const counting: FileSync = {
    datasync: (fd) => {
      logSyncs++;
      realFileSync.datasync(fd);
    },
    datasyncAsync: (fd) => {
      logSyncs++;
      return realFileSync.datasyncAsync!(fd);
    },
  };
  const createMs = await timeAsync(async () => {
    if (!withSession) return;
    const handle = new SessionStore(home).create({
      workflow_name: spec.name, pattern_type: spec.pattern.type, spec_path: 'bench.yaml', spec_hash: '', cwd, variables,
      runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: steps,
    });
    const taken = SessionLock.acquire(handle.dir, 30_000);
    if (!taken.acquired) throw new Error('bench: the new session is locked');
    const sessionJournal = handle.openJournal({ fileSync: counting });
    sessionJournal.guardWith(() => taken.lock.stillOwned());
    sessionId = handle.record.session_id;
    journal = sessionJournal;
    epoch = taken.lock.epoch;
    checkpoints = () => sessionJournal.checkpointsWritten;
    close = () => {
      taken.lock.release();
      sessionJournal.close();
    };
  });
  const executor = new SessionExecutor({ sessionId, spec, variables, provider: createProvider(spec, {}), journal, blobs: new MemoryBlobStore(), progress: initialProgress(steps), cwd, epoch });
  let firstStep = 0;
  let lastStep = 0;
  // Any pattern: from the first step's start to the last completion (several run at once in a workflow).
  executor.subscribe((event) => {
    if (event.type === 'step_started' && firstStep === 0) firstStep = performance.now();
    if (event.type === 'step_completed') lastStep = performance.now();
  });
  const runMs = await timeAsync(async () => {
    await executor.run();
    close();
  });
  return { createMs, runMs, stepsMs: lastStep - firstStep, logSyncs, checkpoints: checkpoints() };
}

export interface OverheadRow {
  steps: number;
  runs: number;
  /** Medians of the step phase (first step start → last step completion), with and without a session. */
  withMs: number;
  withoutMs: number;
  /** With a session, per step: the wall time, and what the session adds to it. */
  wallPerStepMs: number;
  perStepMs: number;
  /** One append + one fdatasync (inline, and on the thread pool), sampled right beside each pair of runs (median of their means). */
  floor: SyncFloor;
  /** Event-log fdatasyncs per step over the whole run, and checkpoints per run. */
  syncsPerStep: number;
  checkpoints: number;
  createMs: number;
  /** Once per run, not per step: session start and completion (checkpoint, index row). */
  startFinishMs: number;
}

/**
 * Per-step cost of durability: (step phase with a session − without) / N, medians over alternating
 * runs, beside the disk's floor sampled between them. What a session costs once (creation, start,
 * completion) is measured and reported apart.
 */
export async function checkpointOverhead(): Promise<OverheadRow[]> {
  return overheadRows([[10, 31], [100, 11], [1000, 5]].map(([steps, runs]) => ({ steps: steps!, runs: runs!, text: benchSpec(steps!) })));
}

/**
 * A scripted workflow of `lanes` × `depth` tasks: task (level l, lane k) depends on (l − 1, k), so
 * `lanes` tasks are ready at a time, and `max_parallel: lanes` runs them together.
 */
export function workflowBenchSpec(lanes: number, depth: number): string {
  const tasks: string[] = [];
  for (let level = 0; level < depth; level++) {
    for (let lane = 0; lane < lanes; lane++) {
      const deps = level === 0 ? '' : `, deps: [t${level - 1}_${lane}]`;
      const input = level === 0 ? 'Task on {{ topic }}' : `Next: {{ tasks.t${level - 1}_${lane}.response | truncate(120) }}`;
      tasks.push(`      - { id: t${level}_${lane}, agent: worker, input: "${input}"${deps} }`);
    }
  }
  return `version: 0
name: bench-workflow-${lanes * depth}
runtime:
  provider: scripted
  max_parallel: ${lanes}
  scripted:
    latency_ms: 0
    response_bytes: 2048
agents:
  worker: { prompt: "You are a worker." }
inputs: { values: { topic: benchmarks } }
pattern:
  type: workflow
  config:
    tasks:
${tasks.join('\n')}
`;
}

/** The per-task cost of a 200-task workflow with 8 tasks ready at a time: group commit shares the fdatasyncs. */
export async function workflowOverhead(): Promise<OverheadRow[]> {
  return overheadRows([{ steps: 200, runs: 11, text: workflowBenchSpec(8, 25) }]);
}

export async function overheadRows(cases: { steps: number; runs: number; text: string }[]): Promise<OverheadRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'acode-bench-'));
  const rows: OverheadRow[] = [];
  try {
    for (const { steps, runs, text } of cases) {
      await runOnce(steps, true, join(root, 'warm'), root, text); // warm up the JIT and the page cache
      await runOnce(steps, false, join(root, 'warm'), root, text);
      const withTimes: Timing[] = [];
      const withoutTimes: Timing[] = [];
      const floors: SyncFloor[] = [];
      for (let i = 0; i < runs; i++) {
        withTimes.push(await runOnce(steps, true, join(root, `home-${steps}`), root, text));
        withoutTimes.push(await runOnce(steps, false, join(root, `home-${steps}`), root, text));
        floors.push(await syncFloor(Math.min(Math.max(steps, 50), 200)));
      }
      const withMs = median(withTimes.map((t) => t.stepsMs));
      const withoutMs = median(withoutTimes.map((t) => t.stepsMs));
      const startFinishMs = median(withTimes.map((t) => t.runMs - t.stepsMs)) - median(withoutTimes.map((t) => t.runMs - t.stepsMs));
      rows.push({
        steps, runs, withMs, withoutMs, wallPerStepMs: withMs / steps, perStepMs: (withMs - withoutMs) / steps, floor: { inlineMs: median(floors.map((f) => f.inlineMs)), threadPoolMs: median(floors.map((f) => f.threadPoolMs)) },
        syncsPerStep: median(withTimes.map((t) => t.logSyncs)) / steps, checkpoints: median(withTimes.map((t) => t.checkpoints)),
        createMs: median(withTimes.map((t) => t.createMs)), startFinishMs,
      });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
