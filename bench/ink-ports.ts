import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './median.js';

/** The builds of bench/run-view-cpu.tsx that scripts/build.mjs makes: the CLI's, and each it compares it with. */
export const inkPortVariants = {
  ports: 'run-view-cpu.js',
  stock: 'ink-ports/stock/run-view-cpu.js',
  'without-output': 'ink-ports/without-output/run-view-cpu.js',
  'without-text-width': 'ink-ports/without-text-width/run-view-cpu.js',
  'tick-spinner': 'ink-ports/tick-spinner/run-view-cpu.js',
  'stock-throttle': 'ink-ports/stock-throttle/run-view-cpu.js',
} as const;

export type InkPortVariant = keyof typeof inkPortVariants;

/** One run of a build: a second of streaming, as bench/run-view-cpu.tsx measures it. */
export interface RunViewSecond {
  cpuMsPerS: number;
  framesPerS: number;
  timersPerS: number;
  bytesPerS: number;
}

export interface InkPortFigures {
  seconds: number;
  deltasPerS: number;
  /** Every round of every build, in the order run. */
  rounds: Record<InkPortVariant, RunViewSecond[]>;
  /** The median of each figure over the rounds. */
  medians: Record<InkPortVariant, RunViewSecond>;
}

/** Runs one build in a child process: `seconds` of streaming at `deltasPerS`, after a second's warm-up. */
function runOnce(variant: InkPortVariant, seconds: number, deltasPerS: number): RunViewSecond {
  const program = fileURLToPath(new URL(`./${inkPortVariants[variant]}`, import.meta.url));
  if (!existsSync(program)) throw new Error(`${program} is missing: \`node scripts/build.mjs --bench\` (as \`npm run bench\` does) builds the bench's run views`);
  // Ink draws nothing in CI (is-in-ci): the children run as on a person's terminal.
  const env = { ...process.env };
  delete env.CI;
  delete env.CONTINUOUS_INTEGRATION;
  const child = spawnSync(process.execPath, [program, String(seconds), String(deltasPerS)], { env, encoding: 'utf8', timeout: (seconds + 30) * 1_000 });
  const line = child.stdout.split('\n').find((text) => text.startsWith('{"cpuMsPerS"'));
  if (!line) throw new Error(`${program} printed no figures (exit ${String(child.status)}): ${child.stderr}`);
  return JSON.parse(line) as RunViewSecond;
}

/**
 * The run view's CPU while a step streams, each build in its own process, `rounds` rounds taking
 * turns (this machine's speed drifts: builds measured side by side, round by round).
 */
export function inkPortFigures(variants: readonly InkPortVariant[], rounds = 7, seconds = 4, deltasPerS = 50): InkPortFigures {
  const all = Object.fromEntries(variants.map((variant) => [variant, [] as RunViewSecond[]])) as Record<InkPortVariant, RunViewSecond[]>;
  for (let round = 0; round < rounds; round++) {
    // Each round in another order: no build always runs right after the same one.
    const order = [...variants.slice(round % variants.length), ...variants.slice(0, round % variants.length)];
    for (const variant of order) all[variant].push(runOnce(variant, seconds, deltasPerS));
  }
  const medians = Object.fromEntries(
    variants.map((variant) => {
      const runs = all[variant];
      const of = (key: keyof RunViewSecond) => median(runs.map((run) => run[key]));
      return [variant, { cpuMsPerS: of('cpuMsPerS'), framesPerS: of('framesPerS'), timersPerS: of('timersPerS'), bytesPerS: of('bytesPerS') }];
    }),
  ) as Record<InkPortVariant, RunViewSecond>;
  return { seconds, deltasPerS, rounds: all, medians };
}
