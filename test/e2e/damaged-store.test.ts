import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { snapshotFolder } from '../helpers/folder-snapshot.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A home with one session killed at step 2 of 3: resumable, with a few events in its log. */
async function crashedSession() {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  const env = { ACODE_HOME: home };
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: crash }' }));
  const crashed = await runCli(['run', 'spec.yaml'], { cwd, env });
  expect(crashed.signal).toBe('SIGKILL');
  const listed = JSON.parse((await runCli(['sessions', 'list', '--json'], { cwd, env })).stdout) as { session_id: string }[];
  const id = listed[0]!.session_id;
  const dir = join(home, 'sessions', id);
  return { cwd, home, env, id, dir, log: join(dir, 'events.jsonl') };
}

/** A clear refusal: the exit code, a message naming `file` (and what to do), no stack trace. */
function expectRefusal(result: CliResult, file: string, advice: RegExp, code = 1): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).toContain(file);
  expect(result.stderr).toMatch(advice);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
}

describe('a damaged session store gets a clear answer, and nothing is written', () => {
  it('names events.jsonl and the line of a garbage line in the middle of the log (show --json, history, resume)', async () => {
    const s = await crashedSession();
    const lines = readFileSync(s.log, 'utf8').split('\n');
    lines[2] = 'garbage{';
    writeFileSync(s.log, lines.join('\n'));
    const before = snapshotFolder(s.home);
    for (const args of [['sessions', 'show', s.id, '--json'], ['sessions', 'history', s.id], ['sessions', 'history', s.id, '--json'], ['resume', s.id], ['resume']]) {
      const result = await runCli(args, { cwd: s.cwd, env: s.env });
      expectRefusal(result, `${s.log}: line 3 is not valid JSON`, /Restore .* from a backup, or delete the session with 'acode sessions delete/);
    }
    expect(snapshotFolder(s.home)).toEqual(before);
  });

  // FIXED: source/engine/event-shape.ts: a line that parsed was taken as the event it named — a step_completed without its
  // response crashed show and resume (a TypeError's stack); one whose type was changed was passed over, and the resume paid
  // for that finished step's model call again.
  it.each([
    ['without its response', (event: Record<string, unknown>) => ({ ...event, response: undefined }), 'step_completed has no response'],
    ['with usage of the wrong shape', (event: Record<string, unknown>) => ({ ...event, usage: { input: 'many' } }), "step_completed's usage is not token usage ({input, output})"],
    ['renamed to a type acode does not know', (event: Record<string, unknown>) => ({ ...event, type: 'step_finished' }), 'its type "step_finished" is not one acode knows'],
  ] as const)('names the line of a step_completed %s, for show, history and resume', async (_how, damage, what) => {
    const type = 'step_completed';
    const s = await crashedSession();
    const lines = readFileSync(s.log, 'utf8').split('\n');
    const at = lines.findIndex((line) => line.includes(`"type":"${type}"`));
    lines[at] = JSON.stringify(damage(JSON.parse(lines[at]!) as Record<string, unknown>));
    writeFileSync(s.log, lines.join('\n'));
    const before = snapshotFolder(s.home);
    for (const args of [['sessions', 'show', s.id], ['sessions', 'history', s.id], ['resume', s.id, '--dry-run'], ['resume', s.id]]) {
      expectRefusal(await runCli(args, { cwd: s.cwd, env: s.env }), `${s.log}: line ${at + 1} is not a whole event: ${what}`, /Restore .* from a backup/);
    }
    expect(snapshotFolder(s.home)).toEqual(before);
  });

  it('names the line of an event with invalid UTF-8 (history)', async () => {
    const s = await crashedSession();
    const lines = readFileSync(s.log).toString('latin1').split('\n');
    const event = JSON.parse(lines[1]!) as Record<string, unknown>;
    lines[1] = JSON.stringify({ ...event, agent: 'w\u00ffrker' });
    // \u00ff in latin1 is the single byte 0xFF, which never occurs in UTF-8.
    writeFileSync(s.log, Buffer.from(lines.join('\n'), 'latin1'));
    const before = snapshotFolder(s.home);
    for (const args of [['sessions', 'history', s.id], ['resume', s.id]]) {
      expectRefusal(await runCli(args, { cwd: s.cwd, env: s.env }), `${s.log}: line 2 is not valid UTF-8`, /Restore .* from a backup/);
    }
    expect(snapshotFolder(s.home)).toEqual(before);
  });

  it.each(['spec.yaml', 'spec.json'])('names %s when it is missing from the session folder (resume)', async (name) => {
    const s = await crashedSession();
    rmSync(join(s.dir, name));
    const before = snapshotFolder(s.home);
    const result = await runCli(['resume', s.id], { cwd: s.cwd, env: s.env });
    expectRefusal(result, `${join(s.dir, name)} is missing`, /Restore it from a backup, or run the workflow again with 'acode run .*spec\.yaml'/);
    expect(snapshotFolder(s.home)).toEqual(before);
  });

  it('names events.jsonl when it cannot be read (resume)', async () => {
    const s = await crashedSession();
    // Root reads any file whatever its mode: a folder in the log's place is unreadable for everyone.
    renameSync(s.log, `${s.log}.moved`);
    mkdirSync(s.log);
    const before = snapshotFolder(s.home);
    const result = await runCli(['resume', s.id], { cwd: s.cwd, env: s.env });
    expectRefusal(result, `${s.log} cannot be read (EISDIR)`, /Restore .* from a backup/);
    expect(snapshotFolder(s.home)).toEqual(before);
  });

  it('says that sessions/ is a file, for every command, and changes nothing', async () => {
    const s = await crashedSession();
    renameSync(join(s.home, 'sessions'), join(s.home, 'sessions.moved'));
    writeFileSync(join(s.home, 'sessions'), 'not a folder\n');
    const before = snapshotFolder(s.home);
    const commands = [['sessions', 'list'], ['sessions', 'list', '--json'], ['sessions', 'show', s.id], ['sessions', 'history', s.id], ['sessions', 'delete', s.id, '--force'], ['sessions', 'unlock', s.id, '--force'], ['resume'], ['resume', s.id], ['fork', s.id], ['run', 'spec.yaml']];
    for (const args of commands) {
      expectRefusal(await runCli(args, { cwd: s.cwd, env: s.env }), `${join(s.home, 'sessions')} is a file`, /move that file away, or set ACODE_HOME/);
    }
    expect(snapshotFolder(s.home)).toEqual(before);
  });
});
