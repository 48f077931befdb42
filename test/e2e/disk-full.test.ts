import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { smallTmpfs, tmpfsUnavailable } from '../helpers/small-tmpfs.js';

/** 30 scripted steps of 64 KiB answers: about 2 MB of event log. */
function bigAnswersSpec(steps: number): string {
  const lines = Array.from({ length: steps }, (_, k) => `      - agent: worker\n        input: "Step ${k} after {{ steps | length }} steps"`);
  return [
    'version: 0', 'name: fills-the-disk', 'runtime:', '  provider: scripted', '  model_id: m', '  scripted:', '    response_bytes: 65536',
    'agents:', '  worker:', '    prompt: "You work."', 'pattern:', '  type: chain', '  config:', '    steps:', ...lines, '',
  ].join('\n');
}

const noTrace = (stderr: string) => expect(stderr).not.toMatch(/^\s+at /m);

describe.skipIf(tmpfsUnavailable !== null)('a disk that fills up mid-run (a real 3 MB tmpfs)', () => {
  it('pauses cleanly, naming the file and the resume command, and resumes to the end once space is freed', async () => {
    const disk = smallTmpfs('3m');
    const home = join(disk, 'home');
    const env = { ACODE_HOME: home };
    writeFileSync(join(disk, 'spec.yaml'), bigAnswersSpec(30));
    // 1 MB left: the run stops about half way.
    writeFileSync(join(disk, 'filler'), Buffer.alloc(2_000_000));

    const run = await runCli(['run', 'spec.yaml'], { cwd: disk, env });
    expect(run.code, run.stderr).toBe(1);
    noTrace(run.stderr);
    const full = /acode: disk full writing (\/\S+); free space, then acode resume ([0-9a-f]{16})\n/.exec(run.stderr);
    expect(full, run.stderr).not.toBeNull();
    const [, file, id] = full!;
    expect(file!.startsWith(join(home, 'sessions', id!))).toBe(true);

    // Not left looking like a live run: paused (or, if not even that fit, interrupted), and resumable.
    const listed = await runCli(['sessions', 'list', '--json'], { cwd: disk, env });
    expect(listed.code, listed.stderr).toBe(0);
    const [row] = JSON.parse(listed.stdout) as { session_id: string; status: string; steps_done: number; resumable: boolean }[];
    expect(row).toMatchObject({ session_id: id, resumable: true });
    expect(row!.steps_done).toBeGreaterThan(0);
    expect(row!.steps_done).toBeLessThan(30);
    expect(['paused', 'running']).toContain(row!.status);
    const log = readFileSync(join(home, 'sessions', id!, 'events.jsonl'), 'utf8');
    expect(log.endsWith('\n')).toBe(true);
    if (row!.status === 'paused') expect(JSON.parse(log.trimEnd().split('\n').at(-1)!)).toMatchObject({ type: 'session_paused', reason: 'disk_full' });

    rmSync(join(disk, 'filler'));
    const resumed = await runCli(['resume', id!, '--json'], { cwd: disk, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: id, status: 'completed', steps_skipped: row!.steps_done, steps_executed: 30 - row!.steps_done });
  }, 60_000);

  // FIXED: source/store/local-repository.ts (deleteIfIdle): deleting under the session's lock wrote a lock file first, so on
  // a full disk cleanup — the way to free space — failed with a stack trace.
  it('cleans up sessions on a full disk', async () => {
    const disk = smallTmpfs('2m');
    const home = join(disk, 'home');
    const env = { ACODE_HOME: home };
    writeFileSync(join(disk, 'spec.yaml'), bigAnswersSpec(2));
    expect((await runCli(['run', 'spec.yaml'], { cwd: disk, env })).code).toBe(0);
    // Every byte left taken.
    const fd = openSync(join(disk, 'filler'), 'w');
    try {
      for (;;) writeSync(fd, Buffer.alloc(4096));
    } catch {
      // ENOSPC: full
    } finally {
      closeSync(fd);
    }
    const cleaned = await runCli(['sessions', 'cleanup', '--older-than', '0s', '--yes'], { cwd: disk, env });
    noTrace(cleaned.stderr);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stderr).toContain('deleted 1 session');
    expect(readdirSync(join(home, 'sessions')).filter((name) => !name.startsWith('.'))).toEqual([]);
  }, 60_000);

  it('refuses to start a run on a full disk with a clear message, leaving nothing it cannot resume', async () => {
    const disk = smallTmpfs('1m');
    const home = join(disk, 'home');
    const env = { ACODE_HOME: home };
    writeFileSync(join(disk, 'spec.yaml'), bigAnswersSpec(3));
    mkdirSync(join(home, 'sessions'), { recursive: true });
    // Two pages left: not enough for a session's files.
    writeFileSync(join(disk, 'filler'), Buffer.alloc(1024 * 1024 - 24 * 1024));
    const run = await runCli(['run', 'spec.yaml'], { cwd: disk, env });
    noTrace(run.stderr);
    expect(run.code, run.stderr).toBe(1);
    const [, resumeId] = /^acode: disk full writing \/\S+; free space, then (?:run the workflow again|acode resume ([0-9a-f]{16}))/m.exec(run.stderr) ?? [];
    expect(run.stderr).toMatch(/^acode: disk full writing/m);
    // Either nothing was made, or the session named in the message can be resumed once there is space.
    rmSync(join(disk, 'filler'));
    if (resumeId === undefined) expect(readdirSync(join(home, 'sessions'))).toEqual([]);
    else expect((await runCli(['resume', resumeId], { cwd: disk, env })).code).toBe(0);
  }, 60_000);

  it('keeps running while the lock heartbeat cannot be written, then pauses at the next write that needs space', async () => {
    const disk = smallTmpfs('2m');
    const home = join(disk, 'home');
    const env = { ACODE_HOME: home };
    // A heartbeat every 250 ms, and a 1 s model call for it to fail during.
    mkdirSync(join(disk, '.acode'));
    writeFileSync(join(disk, '.acode', 'config.yml'), 'resume:\n  lock_timeout_seconds: 1\n');
    writeFileSync(join(disk, 'spec.yaml'), bigAnswersSpec(2).replace('    response_bytes: 65536', '    response_bytes: 65536\n    latency_ms: 1000'));
    const run = startCli(['run', 'spec.yaml'], { cwd: disk, env });
    let stderr = '';
    await new Promise<void>((resolve) => run.child.stderr!.on('data', (chunk: Buffer) => ((stderr += chunk.toString()).includes('▶ step 1/2') ? resolve() : undefined)));
    // Fill every byte left while step 1 waits for its answer.
    const filler = openSync(join(disk, 'filler'), 'w');
    const block = Buffer.alloc(4096, 1);
    try {
      for (;;) writeSync(filler, block);
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    for (let bytes = 512; bytes >= 1; bytes >>= 1) {
      try {
        for (;;) writeSync(filler, block, 0, bytes);
      } catch {
        // the next smaller write may still fit
      }
    }
    closeSync(filler);
    const result = await run.done;
    noTrace(result.stderr);
    expect(result.code, result.stderr).toBe(1);
    const [, id] = /disk full writing \/\S+; free space, then acode resume ([0-9a-f]{16})\n/.exec(result.stderr) ?? [];
    expect(id, result.stderr).toBeDefined();

    rmSync(join(disk, 'filler'));
    const resumed = await runCli(['resume', id!, '--json'], { cwd: disk, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: id, status: 'completed' });
  }, 60_000);
});
