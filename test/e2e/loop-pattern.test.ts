import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../source/engine/events.js';
import { recoverProgress } from '../../source/engine/replay-check.js';
import { toCheckpoint } from '../../source/engine/session-progress.js';
import { readEventLog } from '../../source/store/event-log.js';
import { sessionRecordSchema } from '../../source/store/session-record.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';
import { requestStep } from '../helpers/marked-specs.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The Pattern interface proven on a pattern the engine has never seen: a revise loop (test/helpers/
 * loop-pattern.ts) run by the real SessionExecutor with a real session on disk, in a child process
 * that is SIGKILLed mid-loop and resumed the way `acode resume` resumes: lock, replay, run.
 */
const child = `
import { SessionExecutor } from './source/engine/session-executor.ts';
import { highestEpoch } from './source/engine/epoch-fence.ts';
import { recoverProgress } from './source/engine/replay-check.ts';
import { initialProgress } from './source/engine/session-progress.ts';
import { createProvider } from './source/providers/create-provider.ts';
import { loadSpecText } from './source/spec/load-spec.ts';
import { SessionLock } from './source/store/session-lock.ts';
import { SessionStore } from './source/store/session-store.ts';
import { readFileSync } from 'node:fs';
import { revisionLoop } from './test/helpers/loop-pattern.ts';
const [home, cwd, specPath, maxIterations, id] = process.argv.slice(2);
const pattern = revisionLoop(Number(maxIterations));
const store = new SessionStore(home);
let handle;
let progress;
if (id) {
  handle = store.open(id);
  progress = recoverProgress(handle.events(), handle.record.checkpoint);
} else {
  const specText = readFileSync(specPath, 'utf8');
  const { spec } = loadSpecText(specText, specPath);
  progress = initialProgress(pattern.shape(initialProgress(0)).length);
  handle = store.create({ workflow_name: spec.name, pattern_type: pattern.type, spec_path: specPath, spec_hash: 'h', cwd, variables: { topic: 'loops' }, runtime: { provider: 'openai' }, specText, spec, stepsTotal: progress.steps_total });
}
const taken = SessionLock.acquire(handle.dir, 30_000, highestEpoch(handle.events()));
if (!taken.acquired) process.exit(3);
process.stderr.write('session ' + handle.record.session_id + '\\n');
const spec = handle.spec();
const journal = handle.openJournal();
const summary = await new SessionExecutor({
  sessionId: handle.record.session_id, spec, variables: handle.record.variables, provider: createProvider(spec, { OPENAI_API_KEY: 'k' }),
  journal, blobs: handle.blobs(), progress, cwd, pattern, epoch: taken.lock.epoch,
}).run();
journal.close();
taken.lock.release();
process.stdout.write(JSON.stringify(summary));
`;

const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
// Bundled per test: the folder it goes in is a temp dir, removed after each test.
let program: string;
beforeEach(() => {
  program = bundleForChild(child);
});
beforeEach(() => ({ server } = fixture.current()));

function workspace(baseUrl: string) {
  const cwd = tempDir();
  const spec = [
    'version: 0',
    'name: revise-loop',
    'runtime:',
    '  provider: openai',
    '  model_id: test-model',
    `  host: ${baseUrl}`,
    'agents:',
    '  drafter: { prompt: "You draft." }',
    '  judge: { prompt: "You judge drafts; say STOP when one is good enough." }',
    // The loop supplies the steps; the spec still names a pattern for the schema's sake.
    'pattern: { type: chain, config: { steps: [ { agent: drafter, input: "unused" } ] } }',
    'outputs:',
    '  artifacts:',
    '    - path: ./final.md',
    '      from: "{% for s in steps %}{{ s.agent }}: {{ s.response }}\\n{% endfor %}final: {{ last_response }}\\n"',
    '',
  ].join('\n');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home: join(cwd, 'home') };
}

type Workspace = ReturnType<typeof workspace>;

interface Proc {
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  kill(): void;
  id: Promise<string>;
}

function start(ws: Workspace, maxIterations: number, id?: string): Proc {
  const proc = spawn(process.execPath, [program, ws.home, ws.cwd, join(ws.cwd, 'spec.yaml'), String(maxIterations), ...(id ? [id] : [])], { cwd: ws.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const sessionId = new Promise<string>((resolve) =>
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /session ([0-9a-f]+)/.exec(stderr);
      if (found) resolve(found[1]!);
    }),
  );
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => proc.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { done, kill: () => proc.kill('SIGKILL'), id: sessionId };
}

function sessionFiles(ws: Workspace, id: string): { log: EngineEvent[]; checkpoint: ReturnType<typeof sessionRecordSchema.parse>['checkpoint'] } {
  const dir = join(ws.home, 'sessions', id);
  return { log: readEventLog(join(dir, 'events.jsonl')), checkpoint: sessionRecordSchema.parse(JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8'))).checkpoint };
}

const judgeAgain = 'needs another pass';
const judgeStop = 'STOP: good enough';
const iterationOf = (step: string) => Number(/^iter-(\d+)\//.exec(step)?.[1] ?? 0);

describe('a looping pattern (test-only) run by the step scheduler, killed and resumed mid-loop', () => {
  it.each([
    {
      name: 'killed while iteration 3 drafts; the judge would now stop anywhere: it stops at 3, where nothing was judged yet',
      killAt: 'iter-3/draft', cap: 6, judgeAfter: () => judgeStop, iterations: 3,
    },
    {
      name: 'killed while iteration 2 is judged; judgements already recorded would now flip to STOP: it runs on to the cycle cap',
      killAt: 'iter-2/judge', cap: 4, judgeAfter: (k: number) => (k < 2 ? judgeStop : judgeAgain), iterations: 4,
    },
  ])('$name', async ({ killAt, cap, judgeAfter, iterations }) => {
    const { baseUrl } = fixture.current();
    const ws = workspace(baseUrl);
    // Before the kill the judge always asks for another pass; the step it is killed at never answers.
    server.handler = (request) => {
      const step = requestStep(request.user);
      if (step === killAt) return { kind: 'hang' };
      return step.endsWith('/judge') ? { kind: 'answer', text: `${judgeAgain} (${step})` } : { kind: 'answer' };
    };
    const first = start(ws, cap);
    await Promise.race([server.waitFor((request) => requestStep(request.user) === killAt), first.done.then((r) => expect.fail(`ended before ${killAt}: ${r.code} ${r.stderr} ${r.stdout}`))]);
    first.kill();
    expect((await first.done).signal).toBe('SIGKILL');
    const id = await first.id;
    const before = sessionFiles(ws, id);
    const completedBefore = before.log.flatMap((e) => (e.type === 'step_completed' ? [e.step] : []));
    const sentBefore = server.requests.length;
    expect(Object.keys(recoverProgress(before.log, before.checkpoint).in_progress)).toEqual([killAt]);

    // After the kill the judge answers differently: a judgement asked again would change the loop.
    server.handler = (request) => {
      const step = requestStep(request.user);
      return step.endsWith('/judge') ? { kind: 'answer', text: `${judgeAfter(iterationOf(step))} (${step})` } : { kind: 'answer' };
    };
    const resumed = await start(ws, cap, id).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = JSON.parse(resumed.stdout) as { status: string; steps_total: number; steps_skipped: number; steps_executed: number };
    expect(summary).toMatchObject({ status: 'completed', steps_total: 2 * iterations, steps_skipped: completedBefore.length, steps_executed: 2 * iterations - completedBefore.length });

    // It continued at the step it was killed in, asked nothing it had finished, and went on to the end.
    const asked = server.requests.slice(sentBefore).map((request) => requestStep(request.user));
    expect(asked[0]).toBe(killAt);
    expect(asked.filter((step) => completedBefore.includes(step))).toEqual([]);
    const all = Array.from({ length: iterations }, (_, i) => [`iter-${i + 1}/draft`, `iter-${i + 1}/judge`]).flat();
    expect([...completedBefore, ...asked]).toEqual(all);

    const after = sessionFiles(ws, id);
    expect(after.log.filter((e) => e.type === 'step_completed').map((e) => (e.type === 'step_completed' ? e.step : ''))).toEqual(all);
    expect(new Set(after.log.map((e) => e.event_id)).size).toBe(after.log.length);
    // The log replays to the checkpoint the resumed run wrote.
    expect(toCheckpoint(recoverProgress(after.log, after.checkpoint))).toEqual(after.checkpoint);
    const artifact = readFileSync(join(ws.cwd, 'final.md'), 'utf8');
    expect(artifact.split('\n').filter((line) => line.startsWith('judge:'))).toHaveLength(iterations);
    expect(artifact).toContain(`judge: ${judgeAfter(iterations)} (iter-${iterations}/judge)`);
  });
});
