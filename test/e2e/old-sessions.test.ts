import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../source/engine/events.js';
import { recoverProgress } from '../../source/engine/replay-check.js';
import { replayEvents, toCheckpoint } from '../../source/engine/session-progress.js';
import { readEventLog } from '../../source/store/event-log.js';
import { sessionRecordSchema } from '../../source/store/session-record.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Sessions written by acode at b3ef8a7, before step ids (test/fixtures/old-sessions/README.md):
 * the new acode lists, shows, replays, resumes, approves and forks them.
 */
const fixture = 'test/fixtures/old-sessions';
const madeUnder = '/tmp/acode-b3ef8a7';
const completed = 'bd4141d9276eac8c';
const crashed = 'af3c57e4f2580229';
const awaiting = '475e957ad11d5ad3';
const forked = '3c6cc0740bb9f1bc';
const paused = '9fb26d435dae58b0';
const all = [completed, crashed, awaiting, forked, paused];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The fixture copied into a temp folder, its absolute paths moved there: a home and the project its sessions ran in. */
function oldHome() {
  const root = tempDir();
  cpSync(fixture, root, { recursive: true });
  for (const path of filesUnder(join(root, 'home'))) {
    if (path.includes('/blobs/')) continue;
    const text = readFileSync(path, 'utf8');
    if (text.includes(madeUnder)) writeFileSync(path, text.replaceAll(madeUnder, root));
  }
  // The crash left its lock behind; the process that held it is gone, on this machine.
  const lock = join(root, 'home/sessions', crashed, 'lock');
  writeFileSync(lock, readFileSync(lock, 'utf8').replace('"host":"vm"', `"host":${JSON.stringify(hostname())}`));
  const cwd = join(root, 'project');
  return { root, cwd, home: join(root, 'home'), env: { ACODE_HOME: join(root, 'home') } };
}

type Home = ReturnType<typeof oldHome>;

function stored(home: Home, id: string) {
  const dir = join(home.home, 'sessions', id);
  return {
    raw: JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8')) as { schemaVersion: number },
    record: sessionRecordSchema.parse(JSON.parse(readFileSync(join(dir, 'session.json'), 'utf8'))),
    log: readEventLog(join(dir, 'events.jsonl')),
  };
}

/** The log as `sessions history --json` prints it: each step by its name (a chain's from 1). */
async function history(home: Home, id: string): Promise<EngineEvent[]> {
  const result = await runCli(['sessions', 'history', id, '--json'], home);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as EngineEvent[];
}

/** Each event's step as `sessions history` names it (a chain's from 1; the raw log keeps 0-based ids) and its attempt. */
const stepsOf = (events: EngineEvent[], type: EngineEvent['type']) => events.flatMap((e) => (e.type === type && 'step' in e ? [`${e.step}${'attempt' in e ? `#${e.attempt}` : ''}`] : []));

describe('sessions written by acode b3ef8a7 (session schema 1)', () => {
  it('lists them with their status and progress', async () => {
    const home = oldHome();
    const result = await runCli(['sessions', 'list', '--json'], home);
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { session_id: string; workflow_name: string; status: string; steps_done: number; steps_total: number }[];
    expect(rows.map((r) => [r.session_id, r.workflow_name, r.status, `${r.steps_done}/${r.steps_total}`])).toEqual([
      [paused, 'old-pause', 'paused', '2/3'],
      [forked, 'old-chain', 'completed', '3/3'],
      [awaiting, 'old-gate', 'awaiting_approval', '1/3'],
      [crashed, 'old-crash', 'running', '2/4'],
      [completed, 'old-chain', 'completed', '3/3'],
    ]);
    const plain = await runCli(['sessions', 'list'], home);
    expect(plain.stdout).toMatch(new RegExp(`${crashed}\\s+old-crash\\s+running \\(interrupted\\)\\s+2/4`));
  });

  it('shows each, and prints its history with step ids', async () => {
    const home = oldHome();
    for (const id of all) {
      const shown = await runCli(['sessions', 'show', id], home);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(`session   ${id}`);
      expect(shown.stdout).toContain(`cwd       ${home.cwd}`);
      const json = JSON.parse((await runCli(['sessions', 'show', id, '--json'], home)).stdout) as { checkpoint: { steps_done: number } };
      expect(json.checkpoint.steps_done).toBe(stored(home, id).record.checkpoint.steps_done);
      const events = await history(home, id);
      expect(events.map((e) => e.event_id)).toEqual(readFileSync(join(home.home, 'sessions', id, 'events.jsonl'), 'utf8').trimEnd().split('\n').map((_, i) => i + 1));
      for (const event of events) if ('step' in event && event.step !== null) expect(typeof event.step, `${id} event ${event.event_id}`).toBe('string');
    }
    expect((await runCli(['sessions', 'show', crashed], home)).stdout).toMatch(/status\s+running \(interrupted/);
    expect(stepsOf(await history(home, forked), 'step_reused')).toEqual(['1']);
  });

  it('replays each old log to its old checkpoint, read in the new shape', () => {
    const home = oldHome();
    for (const id of all) {
      const { raw, record, log } = stored(home, id);
      expect(raw.schemaVersion, id).toBe(1);
      const upTo = log.filter((e) => e.event_id <= record.checkpoint.last_event_id);
      expect(toCheckpoint(replayEvents(upTo, record.checkpoint.steps_total)), id).toEqual(record.checkpoint);
      // The whole log rolls the checkpoint forward (the crash left it one event behind) without complaint.
      expect(recoverProgress(log, record.checkpoint).last_event_id, id).toBe(log.at(-1)!.event_id);
    }
    const crash = stored(home, crashed);
    expect(crash.log.length).toBe(crash.record.checkpoint.last_event_id + 1);
    expect(Object.keys(recoverProgress(crash.log, crash.record.checkpoint).in_progress)).toEqual(['2']);
    expect(stored(home, paused).record.checkpoint).toMatchObject({ status: 'paused', steps_done: 2, in_progress: { 2: { step: '2', attempt: 1 } } });
    expect(stored(home, awaiting).record.checkpoint).toMatchObject({ status: 'awaiting_approval', awaiting: ['1'] });
  });

  it('resumes the crashed one: takes over its lock, skips the finished steps, retries the interrupted one', async () => {
    const home = oldHome();
    const notes = readFileSync(join(home.cwd, 'notes.md'));
    const before = stepsOf(stored(home, crashed).log, 'step_started').length;
    const result = await runCli(['resume', crashed, '--json'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('took over the session lock');
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', steps_total: 4, steps_skipped: 2, steps_executed: 2 });
    const events = await history(home, crashed);
    expect(stepsOf(events, 'step_started').slice(before)).toEqual(['3#2', '4#1']);
    expect(stepsOf(events, 'step_completed')).toEqual(['1#1', '2#1', '3#2', '4#1']);
    expect(readFileSync(join(home.cwd, 'notes.md')).equals(notes)).toBe(true);
    expect(readFileSync(join(home.cwd, 'artifacts/crash-report.md'), 'utf8')).toBe(
      '0: wrote notes\n1: step 1 after: wrote notes\n2: step 2 after: step 1 after: wrote notes\n3: step 3 after: step 2 after: step 1 after: wrote notes\n',
    );
    // Written back in the new shape by the run that held it.
    expect(stored(home, crashed).raw.schemaVersion).toBe(2);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  });

  it('resumes the paused one from its interrupted step', async () => {
    const home = oldHome();
    const result = await runCli(['resume', paused, '--json'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', steps_total: 3, steps_skipped: 2, steps_executed: 1 });
    expect(stepsOf(await history(home, paused), 'step_completed')).toEqual(['1#1', '2#1', '3#2']);
    expect(readFileSync(join(home.cwd, 'artifacts/pause-report.md'), 'utf8')).toBe('0: step 0 after: \n1: step 1 after: step 0 after: \n2: step 2 after: step 1 after: step 0 after: \n');
  });

  it('answers the waiting approval with resume --approve and finishes', async () => {
    const home = oldHome();
    const result = await runCli(['resume', awaiting, '--approve', '--json'], home);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'completed', steps_total: 3, steps_skipped: 1, steps_executed: 2 });
    expect(readFileSync(join(home.cwd, 'artifacts/gate-report.md'), 'utf8')).toBe('analysed with review: approved');
    expect(stepsOf(await history(home, awaiting), 'step_started')).toEqual(['1#1', '2#1', '2#2', '3#1']);
  });

  it('forks the completed one and the forked one, reusing their finished steps', async () => {
    const home = oldHome();
    const expected = readFileSync(join(home.cwd, 'artifacts/chain-report.md'));
    for (const [from, fromStep, reused] of [[completed, '3', 2], [forked, '2', 1]] as const) {
      const result = await runCli(['fork', from, '--from-step', fromStep, '--json'], home);
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout) as { session_id: string };
      expect(summary).toMatchObject({ status: 'completed', steps_total: 3, steps_skipped: 0, steps_reused: reused, steps_executed: 3 - reused });
      expect(stepsOf(await history(home, summary.session_id), 'step_reused')).toEqual(Array.from({ length: reused }, (_, i) => String(i + 1)));
      expect(readFileSync(join(home.cwd, 'artifacts/chain-report.md')).equals(expected)).toBe(true);
    }
    // The sources are left as they were.
    expect(stored(home, completed).raw.schemaVersion).toBe(1);
  });
});
