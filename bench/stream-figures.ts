import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atBenchExit } from './bench-exit.js';
import { median } from './median.js';
import { descendantsOf, trackTree } from './process-tree.js';
import { StreamServer } from './stream-server.js';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
const cpuClock = fileURLToPath(new URL('./cpu-clock.js', import.meta.url));

export interface StreamFigures {
  /** From the server writing a step's first piece until it is read back from the pty, one per step. */
  firstMs: number[];
  /** The same for every piece of a slow stream (a piece every 100 ms) that was drawn before its step completed. */
  pieceMs: number[];
  steps: number;
  latencySteps: number;
  /** CPU time of the whole `acode run` (run view in a pty), streamed vs the same answers sent whole after as long. */
  cpuStreamMs: number;
  cpuWholeMs: number;
  /** Every round's CPU time, streamed and whole (the medians above are of these). */
  cpuStreamRounds: number[];
  cpuWholeRounds: number[];
  /** CPU time a step takes, streamed and whole: the run's steps alone (process start and end left out), per step. */
  stepStreamMs: number;
  stepWholeMs: number;
  stepStreamRounds: number[];
  stepWholeRounds: number[];
  /** Streaming's share of a step's CPU time, round by round (each streamed run against the whole run beside it, run at the same time): the median is the figure. */
  shareRounds: number[];
  /** The same of the main thread alone (the program's own code; V8's compiling and collecting run on helper threads). */
  stepStreamMainMs: number;
  stepWholeMainMs: number;
  mainShareRounds: number[];
  /** Wall time of a step, streamed and whole (medians): a streamed answer's end is read at the next read after it, up to a rest later. */
  stepStreamWallMs: number;
  stepWholeWallMs: number;
  /** Bytes the run view sent the terminal a step, streamed and whole (medians). */
  stepStreamBytes: number;
  stepWholeBytes: number;
  /** Pieces an answer has: the fewest and the most (answers differ in length). */
  piecesPerStep: [number, number];
}

function chain(steps: number, host: string): string {
  const lines = Array.from({ length: steps }, (_, k) => `      - { agent: worker, input: "Step ${k} of the stream bench" }`);
  return `version: 0
name: stream-bench
runtime: { provider: openai, host: "${host}", model_id: bench-model }
agents:
  worker: { prompt: "You are a worker." }
pattern:
  type: chain
  config:
    steps:
${lines.join('\n')}
`;
}

/** The acode process under `root`: the one script runs (node, which names itself acode), not `timeout` or script, whose command lines name cli.js too. */
function acodePid(root: number): number | undefined {
  return descendantsOf(root).find((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args[0] === 'acode' || (/(^|\/)node$/.test(args[0] ?? '') && args.includes(cli));
    } catch {
      return false;
    }
  });
}

/** What one `acode run` in a pty cost: its CPU time, and per step between the marks its CPU, its main thread's and its wall time (ms). */
interface PtyRun {
  cpuMs: number;
  stepsCpuMs: number;
  stepsMainMs: number;
  stepsWallMs: number;
  stepsBytes: number;
}

/**
 * `acode run` of `spec` in a pty (util-linux script, 120×40): the output as read, when each marker
 * first showed, its CPU time, and the CPU time a step takes — from its second model call arriving at
 * `server` until its last one did, over the steps between (the process reads its CPU clock on
 * SIGUSR2), which leaves out starting the process, warming up and ending.
 */
function runInPty(dir: string, onOutput: (text: string, at: number) => void, server?: StreamServer, steps = 0): Promise<PtyRun> {
  const cpuFile = join(dir, 'cpu.txt');
  rmSync(cpuFile, { force: true });
  rmSync(`${cpuFile}.marks`, { force: true });
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ACODE_HOME: join(dir, 'home'), TERM: 'xterm-256color', ACODE_BENCH_CPU_FILE: cpuFile };
    const child = spawn('timeout', ['-s', 'KILL', '90', 'script', '-qfec', `stty cols 120 rows 40; node --import ${cpuClock} ${cli} run spec.yaml`, '/dev/null'], { cwd: dir, env });
    const tree = trackTree(child.pid!);
    const markedAt: number[] = [];
    if (server) {
      let first: number | undefined;
      const mark = () => {
        markedAt.push(performance.now());
        const pid = acodePid(child.pid!);
        if (pid !== undefined) process.kill(pid, 'SIGUSR2');
      };
      // From the second call's arrival to the last one's: the steps between, each with its answer and
      // the checkpoint after it (the first step also warms the JIT up); both marks land while the
      // process waits on the server.
      server.onCall = (request) => {
        first ??= request;
        if (request === first + 1 || request === first + steps - 1) mark();
      };
    }
    let stepsBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      tree.note();
      if (markedAt.length === 1) stepsBytes += chunk.length;
      onOutput(chunk.toString(), performance.now());
    });
    child.on('error', (error) => {
      tree.reap();
      reject(error);
    });
    child.once('exit', () => {
      tree.reap();
      try {
        // Each mark: the process's CPU time and its main thread's, ms.
        const marks = server ? readFileSync(`${cpuFile}.marks`, 'utf8').trim().split('\n').map((line) => line.split(' ').map(Number)) : [];
        if (server && marks.length !== 2) throw new Error(`acode run marked its CPU clock ${marks.length} times, not twice`);
        const perStep = (column: number) => (server ? (marks[1]![column]! - marks[0]![column]!) / (steps - 2) : 0);
        resolve({ cpuMs: Number(readFileSync(cpuFile, 'utf8')), stepsCpuMs: perStep(0), stepsMainMs: perStep(1), stepsWallMs: server ? (markedAt[1]! - markedAt[0]!) / (steps - 2) : 0, stepsBytes: server ? stepsBytes / (steps - 2) : 0 });
      } catch (error) {
        reject(new Error(`acode run wrote no CPU time: ${(error as Error).message}`));
      }
    });
  });
}

/** Marks each marker `mk<request>_<piece>z` the first time it is read back, across chunk boundaries. */
function markerClock(): { read(text: string, at: number): void; seenAt: Map<string, number> } {
  const seenAt = new Map<string, number>();
  let tail = '';
  return {
    seenAt,
    read(text, at) {
      const window = tail + text;
      for (const [marker] of window.matchAll(/mk\d+_\d+z/g)) if (!seenAt.has(marker)) seenAt.set(marker, at);
      tail = window.slice(-16);
    },
  };
}

/**
 * Streaming in the run view: how soon the first streamed characters show (a slow stream, one
 * marker a line, a piece every 100 ms), and what streaming costs in CPU — the same answers, in
 * many small pieces or whole after the same wait, over the same number of steps.
 */
export async function streamFigures(steps = 12, latencySteps = 10): Promise<StreamFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'acode-bench-stream-'));
  const removed = atBenchExit(() => rmSync(dir, { recursive: true, force: true }));
  const server = new StreamServer(() => ({ pieces: 5, gapMs: 100, json: false, piece: (r, i) => `mk${r}_${i}z line ${i}\n` }));
  const servers = [server];
  try {
    const host = await server.start();
    writeFileSync(join(dir, 'spec.yaml'), chain(latencySteps, host));

    // Latency: markers in a slow stream.
    const clock = markerClock();
    await runInPty(dir, (text, at) => clock.read(text, at));
    const firstMs: number[] = [];
    const pieceMs: number[] = [];
    for (const [text, sent] of server.sentAt) {
      const marker = /mk\d+_\d+z/.exec(text)![0];
      const seen = clock.seenAt.get(marker);
      // Later pieces are drawn 5 times a second: one that arrives just before its step completes may never be drawn.
      if (seen === undefined && marker.endsWith('_0z')) throw new Error(`the first streamed piece of a step, ${marker}, never showed on screen`);
      if (seen === undefined) continue;
      pieceMs.push(seen - sent);
      if (marker.endsWith('_0z')) firstMs.push(seen - sent);
    }

    const piecesPerStep = 150;
    // Answers of 145–155 pieces, as real ones differ: they end at every phase of the run view's 100 ms
    // beat, on which a stream is read. Answers all 1.5 s long each ended just after a read, the next
    // step starting in step with the beat, and waited a whole rest for the read that saw their end.
    const variedLength = (request: number) => piecesPerStep - 5 + ((request * 7) % 11);
    const lengths: [number, number] = [piecesPerStep - 5, piecesPerStep + 5];
    const word = (r: number, i: number) => `w${r}x${i}${i % 12 === 11 ? '\n' : ' '}`;
    // CPU: word-sized pieces every 10 ms (a fast model's pace), vs the same text whole after as long,
    // from a server of each kind (each counts its own calls, so both runs get the same answers).
    const answers = { pieces: piecesPerStep, piecesOf: variedLength, gapMs: 10, piece: word };
    const streaming = new StreamServer(() => ({ ...answers, json: false }));
    const whole = new StreamServer(() => ({ ...answers, json: true }));
    servers.push(streaming, whole);
    const dirs = { streamed: join(dir, 'streamed'), whole: join(dir, 'whole') };
    for (const [kind, server] of [['streamed', streaming], ['whole', whole]] as const) {
      mkdirSync(dirs[kind]);
      writeFileSync(join(dirs[kind], 'spec.yaml'), chain(steps, await server.start()));
    }
    // Nine rounds of 12 steps (10 measured each), the streamed run and the whole one side by side, one
    // per core. Run after run, a step's CPU time here drifts by ±10–20%, as much as streaming's share;
    // side by side both runs see the same machine: two whole runs so agreed within 0.3–1.5% on the main
    // thread and 2–5% in all (V8's helper threads compile and collect when they do).
    const streamedRuns: PtyRun[] = [];
    const wholeRuns: PtyRun[] = [];
    for (let round = 0; round < 9; round++) {
      // Both runs end before a failure of one is thrown: the other must not go on writing into a folder being removed.
      const [streamedRun, wholeRun] = await Promise.allSettled([runInPty(dirs.streamed, () => undefined, streaming, steps), runInPty(dirs.whole, () => undefined, whole, steps)]);
      if (streamedRun.status === 'rejected') throw streamedRun.reason;
      if (wholeRun.status === 'rejected') throw wholeRun.reason;
      streamedRuns.push(streamedRun.value);
      wholeRuns.push(wholeRun.value);
    }
    const each = (runs: PtyRun[], figure: keyof PtyRun) => runs.map((run) => run[figure]);
    /** Each streamed run's share of `figure` against the whole run beside it. */
    const shares = (figure: keyof PtyRun) => streamedRuns.map((run, i) => (run[figure] - wholeRuns[i]![figure]) / run[figure]);
    return {
      firstMs,
      pieceMs,
      steps,
      latencySteps,
      cpuStreamMs: median(each(streamedRuns, 'cpuMs')),
      cpuWholeMs: median(each(wholeRuns, 'cpuMs')),
      cpuStreamRounds: each(streamedRuns, 'cpuMs'),
      cpuWholeRounds: each(wholeRuns, 'cpuMs'),
      stepStreamMs: median(each(streamedRuns, 'stepsCpuMs')),
      stepWholeMs: median(each(wholeRuns, 'stepsCpuMs')),
      stepStreamRounds: each(streamedRuns, 'stepsCpuMs'),
      stepWholeRounds: each(wholeRuns, 'stepsCpuMs'),
      shareRounds: shares('stepsCpuMs'),
      stepStreamMainMs: median(each(streamedRuns, 'stepsMainMs')),
      stepWholeMainMs: median(each(wholeRuns, 'stepsMainMs')),
      mainShareRounds: shares('stepsMainMs'),
      stepStreamWallMs: median(each(streamedRuns, 'stepsWallMs')),
      stepWholeWallMs: median(each(wholeRuns, 'stepsWallMs')),
      stepStreamBytes: median(each(streamedRuns, 'stepsBytes')),
      stepWholeBytes: median(each(wholeRuns, 'stepsBytes')),
      piecesPerStep: lengths,
    };
  } finally {
    await Promise.all(servers.map((each) => each.stop()));
    removed();
    rmSync(dir, { recursive: true, force: true });
  }
}
