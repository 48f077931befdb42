import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../source/engine/events.js';
import { readEventLog } from '../../source/store/event-log.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';
import { runCli } from '../helpers/cli.js';
import { random } from '../helpers/lock-race.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A run of the real executor and journal over real files, as `acode run` sets them up (session,
 * lock, guarded journal), that kills itself with SIGKILL at a chosen boundary: right after event
 * `e<N>` was recorded, or right before model call `c<N>`. Every fdatasync of the log goes through
 * the FileSync seam, which notes in a side file how many bytes of the log it made durable; the
 * model is reached only through a check that the attempt's step_started lies within them.
 */
const child = `
import { appendFileSync, fdatasync, fdatasyncSync, fstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SessionExecutor } from './source/engine/session-executor.ts';
import { initialProgress } from './source/engine/session-progress.ts';
import { mergeVariables } from './source/engine/template-context.ts';
import { createProvider } from './source/providers/create-provider.ts';
import { hashText } from './source/spec/hash.ts';
import { loadSpecText } from './source/spec/load-spec.ts';
import { SessionLock } from './source/store/session-lock.ts';
import { SessionStore } from './source/store/session-store.ts';
const [home, cwd, specPath, killAt, sidecar] = process.argv.slice(2);
const note = (line) => appendFileSync(sidecar, line + '\\n');
const text = readFileSync(specPath, 'utf8');
const { spec } = loadSpecText(text, specPath);
const variables = mergeVariables(spec, {});
const handle = new SessionStore(home).create({
  workflow_name: spec.name, pattern_type: 'chain', spec_path: specPath, spec_hash: hashText(text), cwd, variables,
  runtime: { provider: spec.runtime.provider, model_id: spec.runtime.model_id }, specText: text, spec, stepsTotal: spec.pattern.config.steps.length,
});
note('session ' + handle.record.session_id);
const taken = SessionLock.acquire(handle.dir, 30000);
if (!taken.acquired) process.exit(3);
const log = join(handle.dir, 'events.jsonl');
let durable = 0;
const syncAsync = promisify(fdatasync);
const journal = handle.openJournal({
  fileSync: {
    datasync(fd) { const size = fstatSync(fd).size; fdatasyncSync(fd); durable = Math.max(durable, size); note('synced ' + size); },
    async datasyncAsync(fd) { const size = fstatSync(fd).size; await syncAsync(fd); durable = Math.max(durable, size); note('synced ' + size); },
  },
});
journal.guardWith(() => taken.lock.stillOwned());
/** Where the line of this attempt's step_started ends in the log, in bytes. */
function startedEnds(step, attempt) {
  let end = 0;
  let found = -1;
  for (const line of readFileSync(log, 'utf8').split('\\n')) {
    end += Buffer.byteLength(line) + 1;
    if (!line) continue;
    const event = JSON.parse(line);
    if (event.type === 'step_started' && event.step === step && event.attempt === attempt) found = end;
  }
  return found;
}
const real = createProvider(spec, {});
let calls = 0;
const provider = Object.assign(Object.create(real), {
  complete(request) {
    const ends = startedEnds(request.step, request.attempt);
    if (ends < 0 || ends > durable) {
      note('VIOLATION model called for step ' + request.step + ' attempt ' + request.attempt + ': step_started ends at ' + ends + ', durable ' + durable);
      process.exit(9);
    }
    if (killAt === 'c' + ++calls) process.kill(process.pid, 'SIGKILL');
    return real.complete(request);
  },
});
const executor = new SessionExecutor({
  sessionId: handle.record.session_id, spec, variables, provider, journal, blobs: handle.blobs(), progress: initialProgress(spec.pattern.config.steps.length), cwd, epoch: taken.lock.epoch,
});
executor.subscribe((event) => {
  if (killAt === 'e' + event.event_id) process.kill(process.pid, 'SIGKILL');
});
const summary = await executor.run();
taken.lock.release();
journal.close();
note('calls ' + calls);
note('status ' + summary.status);
`;

/** Three steps; the middle one writes notes.md through file_write (write-ahead intent, applied) before it answers. */
const spec = [
  'version: 0',
  'name: boundaries',
  'runtime:',
  '  provider: scripted',
  '  model_id: m',
  '  scripted:',
  '    response_bytes: 300',
  '    responses:',
  '      writer: { tool_calls: [ { name: file_write, args: { path: notes.md, content: "notes after {{ last_response }}" } } ], then: "wrote the notes" }',
  'tools:',
  '  python: [strands_tools.file_write.file_write]',
  'agents:',
  '  worker: { prompt: "You work." }',
  '  writer: { prompt: "You write notes." }',
  'pattern:',
  '  type: chain',
  '  config:',
  '    steps:',
  '      - { agent: worker, input: "Step 0" }',
  '      - { agent: writer, input: "Step 1 after {{ steps[0].response }}" }',
  '      - { agent: worker, input: "Step 2 after {{ steps[1].response }}" }',
  'outputs:',
  '  artifacts:',
  '    - path: ./out/report.md',
  '      from: "{% for s in steps %}{{ s.index }}: {{ s.response }}\\n{% endfor %}"',
  '',
].join('\n');

interface ChildRun {
  cwd: string;
  home: string;
  env: Record<string, string>;
  id: string;
  dir: string;
  signal: NodeJS.Signals | null;
  code: number | null;
  side: string[];
}

async function runChild(program: string, killAt: string): Promise<ChildRun> {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  const specPath = join(cwd, 'spec.yaml');
  writeFileSync(specPath, spec);
  const sidecar = join(cwd, 'side.txt');
  writeFileSync(sidecar, '');
  const proc = spawn(process.execPath, [program, home, cwd, specPath, killAt, sidecar], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => proc.once('close', (c, s) => resolve([c, s])));
  const side = readFileSync(sidecar, 'utf8').split('\n').filter(Boolean);
  if (code !== 0 && signal === null) throw new Error(`the child exited ${code}: ${side.join('\n')}\n${stderr}`);
  const id = side.find((l) => l.startsWith('session '))!.slice('session '.length);
  return { cwd, home, env: { ACODE_HOME: home }, id, dir: join(home, 'sessions', id), signal, code, side };
}

/** Bytes of the log the last completed fdatasync covered, as the seam noted them. */
const durableBytes = (side: string[]) => Math.max(0, ...side.filter((l) => l.startsWith('synced ')).map((l) => Number(l.slice('synced '.length))));

const completedSteps = (events: EngineEvent[]) => new Set(events.flatMap((e) => (e.type === 'step_completed' ? [e.step] : [])));

describe('a SIGKILL at every event boundary of a step', () => {
  it('never redoes a step whose step_completed was written, never calls the model before step_started is durable, and ends byte-identical — also when the power cut takes what was not fdatasync\'ed', async () => {
    const program = bundleForChild(child);
    const reference = await runChild(program, 'none');
    expect(reference.side).toContain('status completed');
    const all = readEventLog(join(reference.dir, 'events.jsonl'));
    const calls = Number(reference.side.find((l) => l.startsWith('calls '))!.slice('calls '.length));
    const report = readFileSync(join(reference.cwd, 'out/report.md'));
    const notes = readFileSync(join(reference.cwd, 'notes.md'));
    const rand = random(Date.now() % 100_000);
    let torn = 0;
    /** Kills a run at `killAt`; with a power cut, the log then keeps only what an fdatasync covered (and a torn piece of the next line). */
    const attack = async (killAt: string, powerCut: boolean) => {
      const where = `kill at ${killAt}${powerCut ? ' with a power cut' : ''}`;
      const run = await runChild(program, killAt);
      expect(run.signal, `${where}\n${run.side.join('\n')}`).toBe('SIGKILL');
      expect(run.side.filter((l) => l.startsWith('VIOLATION')), where).toEqual([]);
      const log = join(run.dir, 'events.jsonl');
      const written = statSync(log).size;
      const synced = durableBytes(run.side);
      expect(synced, where).toBeLessThanOrEqual(written);
      if (powerCut && written > synced) {
        // The worst a power cut can do: lose every line not fdatasync'ed, leaving a torn piece of the first.
        const firstUnsynced = readFileSync(log).indexOf(10, synced) + 1 - synced;
        const keep = synced + Math.floor(rand() * firstUnsynced);
        truncateSync(log, keep);
        if (keep > synced) torn++;
      }
      const survivors = readEventLog(log);
      // A working-directory file is touched only after its intent is durable.
      if (existsSync(join(run.cwd, 'notes.md'))) expect(survivors.some((e) => e.type === 'file_write_intended' && e.path.endsWith('notes.md')), where).toBe(true);
      const done = completedSteps(survivors);
      const lastSurvivor = survivors.at(-1)?.event_id ?? 0;

      const resumed = await runCli(['resume', run.id, '--json'], run);
      expect(resumed.code, `${where}\n${resumed.stderr}`).toBe(0);
      const after = readEventLog(log).filter((e) => e.event_id > lastSurvivor);
      const redone = after.flatMap((e) => (e.type === 'step_started' && done.has(e.step) ? [e.step] : []));
      expect(redone, `${where}: steps completed before the kill were started again`).toEqual([]);
      const history = JSON.parse((await runCli(['sessions', 'history', run.id, '--json'], run)).stdout) as EngineEvent[];
      expect(new Set(history.map((e) => e.event_id)).size, where).toBe(history.length);
      expect(history.filter((e) => e.type === 'step_completed').map((e) => e.type === 'step_completed' && e.step), where).toEqual(['1', '2', '3']);
      expect(history.at(-1)?.type, where).toBe('session_completed');
      expect(readFileSync(join(run.cwd, 'out/report.md')).equals(report), `${where}: report.md`).toBe(true);
      expect(readFileSync(join(run.cwd, 'notes.md')).equals(notes), `${where}: notes.md`).toBe(true);
      expect(readdirSync(run.dir).filter((name) => name.endsWith('.tmp')), where).toEqual([]);
    };
    // Every boundary — after each event but the last, before each model call — with and without a power cut.
    const boundaries = [...all.slice(0, -1).map((e) => `e${e.event_id}`), ...Array.from({ length: calls }, (_, n) => `c${n + 1}`)];
    for (const killAt of boundaries) await Promise.all([attack(killAt, false), attack(killAt, true)]);
    // The power cuts really cut into unsynced lines: some left a torn last line for the reader to drop.
    expect(torn).toBeGreaterThan(0);
  }, 300_000);
});
