import { MemoryBlobStore } from '../source/engine/blob-store.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionExecutor } from '../source/engine/session-executor.js';
import { planContinuation } from '../source/engine/continuation-plan.js';
import { patternFor } from '../source/engine/patterns/pattern-for.js';
import { recoverProgress } from '../source/engine/replay-check.js';
import { initialProgress } from '../source/engine/session-progress.js';
import { mergeVariables } from '../source/engine/template-context.js';
import { createProvider } from '../source/providers/create-provider.js';
import { loadSpecText } from '../source/spec/load-spec.js';
import { SessionStore } from '../source/store/session-store.js';
import { benchSpec } from './bench-spec.js';
import { median } from './median.js';

const cli = fileURLToPath(new URL('./cli.js', import.meta.url));

export interface RecoveryFigures {
  steps: number;
  recoverMs: number;
  dryRunMs: number;
}

/** A 1,000-step session stopped after step 998, as a crash leaves it (the lock released). */
async function stoppedSession(home: string, cwd: string, steps: number): Promise<string> {
  const text = benchSpec(steps);
  const { spec } = loadSpecText(text, 'bench.yaml');
  const variables = mergeVariables(spec, {});
  const handle = new SessionStore(home).create({
    workflow_name: spec.name, pattern_type: 'chain', spec_path: join(cwd, 'bench.yaml'), spec_hash: '', cwd, variables,
    runtime: { provider: 'scripted' }, specText: text, spec, stepsTotal: steps,
  });
  const journal = handle.openJournal();
  const executor = new SessionExecutor({ sessionId: handle.record.session_id, spec, variables, provider: createProvider(spec, {}), journal, blobs: new MemoryBlobStore(), progress: initialProgress(steps), cwd });
  executor.subscribe((event) => event.type === 'step_completed' && event.step === String(steps - 3) && executor.cancel());
  await executor.run();
  journal.close();
  return handle.record.session_id;
}

/** State recovery + replay check + planning in-process, and `acode resume --dry-run` as a whole process. */
export async function resumeRecovery(steps = 1000, runs = 11): Promise<RecoveryFigures> {
  const root = mkdtempSync(join(tmpdir(), 'acode-bench-recovery-'));
  try {
    const home = join(root, 'home');
    const id = await stoppedSession(home, root, steps);
    const recover: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const start = performance.now();
      const handle = new SessionStore(home).open(id);
      const progress = recoverProgress(handle.events(), handle.record.checkpoint);
      planContinuation(patternFor(handle.spec()), progress, handle.record.checkpoint);
      if (i > 0) recover.push(performance.now() - start);
    }
    const dry: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const start = performance.now();
      const result = spawnSync(process.execPath, [cli, 'resume', id, '--dry-run'], { cwd: root, env: { ...process.env, ACODE_HOME: home }, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`dry run failed: ${result.stderr}`);
      if (i > 0) dry.push(performance.now() - start);
    }
    return { steps, recoverMs: median(recover), dryRunMs: median(dry) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
