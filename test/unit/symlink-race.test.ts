import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryBlobStore } from '../../source/engine/blob-store.js';
import type { EngineEventBody } from '../../source/engine/events.js';
import type { ToolCall } from '../../source/engine/provider.js';
import { runTool, type ToolRunContext } from '../../source/engine/tools/tool-runner.js';
import { tempDir } from '../helpers/temp-dir.js';

const canary = 'OUTSIDE-CANARY';
const insideA = 'inside a\nLINE two\nLINE three\nfour\n';
const insideB = 'inside b\nLINE b\n';

/**
 * Swaps `sub/` (a real folder) for `evil` (a symlink to the outside folder) and back, then each of
 * `sub/a.txt` and `sub/b.txt` for `sub/?.link` (symlinks to the outside files), as fast as it can
 * for `ms` milliseconds, and leaves the real ones in place. A folder a tool created while `sub` was
 * away (file_write with create_dirs) is moved aside into `strays/` so the loop can go on.
 */
const swapper = `
const { renameSync, mkdirSync } = require('node:fs');
process.chdir(process.argv[1]);
const ms = Number(process.argv[2]);
let strays = 0;
let swaps = 0;
function move(from, to) {
  for (;;) {
    try { renameSync(from, to); return; } catch (error) {
      if (to !== 'sub' || (error.code !== 'EISDIR' && error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST' && error.code !== 'ENOTDIR')) throw error;
      mkdirSync('strays', { recursive: true });
      try { renameSync('sub', 'strays/' + strays++); } catch {}
    }
  }
}
process.stdout.write('ready\\n');
const end = Date.now() + ms;
while (Date.now() < end) {
  move('sub', 'park');
  move('evil', 'sub');
  move('sub', 'evil');
  move('park', 'sub');
  for (const name of ['a', 'b']) {
    move('sub/' + name + '.txt', 'sub/' + name + '.park');
    move('sub/' + name + '.link', 'sub/' + name + '.txt');
    move('sub/' + name + '.txt', 'sub/' + name + '.link');
    move('sub/' + name + '.park', 'sub/' + name + '.txt');
  }
  swaps++;
}
process.stdout.write('swaps ' + swaps + '\\n');
`;

/** Every file under `dir` (not following symlinks) with its content: to compare before and after. */
function snapshot(dir: string, base = dir, into = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stats = lstatSync(path);
    if (stats.isDirectory()) snapshot(path, base, into);
    else into.set(relative(base, path), stats.isSymbolicLink() ? '(symlink)' : readFileSync(path, 'utf8'));
  }
  return into;
}

function startSwapper(cwd: string, ms: number) {
  const child = spawn(process.execPath, ['-e', swapper, cwd, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let exited = false;
  const ready = new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => ((out += chunk.toString()), out.includes('ready') && resolve())));
  const done = new Promise<number>((resolve) => child.on('exit', (code) => ((exited = true), resolve(code ?? -1))));
  return { ready, done, running: () => !exited, swaps: () => Number(/swaps (\d+)/.exec(out)?.[1] ?? 0) };
}

/** Only Linux names what a descriptor really is (/proc/self/fd); elsewhere acode's realpath fallback is not race-proof. */
const procFd = existsSync('/proc/self/fd');
if (!procFd) console.warn('symlink-race: skipped: no /proc/self/fd here, and the realpath fallback does not hold under a swapping loop');

describe('tools under a symlink-swapping loop', () => {
  it.skipIf(!procFd)('never reads or writes outside the working directory while sub/ and its files are swapped for symlinks to outside', async () => {
    const cwd = tempDir();
    const outside = tempDir();
    for (const name of ['a.txt', 'b.txt']) writeFileSync(join(outside, name), `${canary} ${name}\nLINE ${canary}\n`);
    mkdirSync(join(cwd, 'sub'));
    writeFileSync(join(cwd, 'sub', 'a.txt'), insideA);
    writeFileSync(join(cwd, 'sub', 'b.txt'), insideB);
    symlinkSync(outside, join(cwd, 'evil'));
    for (const name of ['a', 'b']) symlinkSync(join(outside, `${name}.txt`), join(cwd, 'sub', `${name}.link`));
    const outsideBefore = snapshot(outside);

    const events: EngineEventBody[] = [];
    const blobs = new MemoryBlobStore();
    const ctx: ToolRunContext = { step: '0', attempt: 1, cwd, extraRoots: [], blobs, emit: (e) => events.push(e) };
    const written = new Map<string, string>();
    const ok = new Map<string, number>();
    type Call = (n: number) => [ToolCall, (output: string) => void];
    const reads: Call[] = [
      () => [{ id: 'r', name: 'file_read', args: { path: 'sub/a.txt' } }, (output) => expect(output).toBe(insideA)],
      () => [{ id: 'h', name: 'head', args: { path: 'sub/a.txt', lines: 2 } }, (output) => expect(output).toBe('inside a\nLINE two')],
      () => [{ id: 't', name: 'tail', args: { path: 'sub/b.txt', lines: 1 } }, (output) => expect(output).toBe('LINE b')],
      () => [{ id: 'g', name: 'grep', args: { pattern: 'LINE', path: 'sub', context_lines: 0 } }, (output) => expect(output === 'no lines match /LINE/' || output.split('\n').every((line) => /^sub\/[^/]+:\d+: LINE [a-z]+$/.test(line)), output).toBe(true)],
      () => [{ id: 'gf', name: 'grep', args: { pattern: 'LINE', path: 'sub/a.txt', context_lines: 0 } }, (output) => expect(output).toBe('sub/a.txt:2: LINE two\nsub/a.txt:3: LINE three')],
    ];
    const writes: Call[] = [
      (n) => [{ id: `w${n}`, name: 'file_write', args: { path: `sub/w-${n}.txt`, content: `written ${n}\n` } }, () => written.set(`w-${n}.txt`, `written ${n}\n`)],
      (n) => [{ id: `d${n}`, name: 'file_write', args: { path: `sub/made-${n}/deep/x-${n}.txt`, content: `deep ${n}\n`, create_dirs: true } }, () => written.set(`x-${n}.txt`, `deep ${n}\n`)],
      (n) => [{ id: `b${n}`, name: 'file_write', args: { path: 'sub/b.txt', content: insideB } }, () => undefined],
    ];
    // Writes fsync and so take longer: a read-heavy mix gets thousands of calls into the window.
    const calls = [...reads, ...reads, ...reads, ...writes];

    const swapping = startSwapper(cwd, 2500);
    await swapping.ready;
    let n = 0;
    const leaks: string[] = [];
    const wrong: string[] = [];
    while (swapping.running()) {
      const [call, check] = calls[n % calls.length]!(n);
      const outcome = await runTool(call, ctx);
      if (outcome.output.includes(canary)) leaks.push(`${call.name} ${String(call.args.path)}: ${outcome.output}`);
      else if (outcome.ok) {
        try {
          check(outcome.output);
        } catch (error) {
          wrong.push(`${call.name} ${String(call.args.path)}: ${(error as Error).message}`);
        }
        ok.set(call.name, (ok.get(call.name) ?? 0) + 1);
      }
      if (++n % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await swapping.done).toBe(0);

    // Nothing outside changed: no file written there, no temp file left, no folder made.
    expect(snapshot(outside)).toEqual(outsideBefore);
    expect(leaks).toEqual([]);
    // A tool that succeeded between swaps saw exactly the inside content.
    expect(wrong).toEqual([]);
    // No snapshot of outside content reached the journal (reads, or the prior content of a write).
    const seen = events.flatMap((e) => ('blob' in e && e.blob ? [e.blob] : 'before_blob' in e && e.before_blob ? [e.before_blob] : []));
    expect(seen.filter((hash) => blobs.get(hash).toString().includes(canary))).toEqual([]);
    // Every write that reported success is inside the working directory, whole.
    const inside = new Map([...snapshot(cwd)].map(([path, content]) => [path.split('/').at(-1)!, content]));
    for (const [name, content] of written) expect(inside.get(name), name).toBe(content);
    expect(readFileSync(join(cwd, 'sub', 'b.txt'), 'utf8')).toBe(insideB);
    // The race was real: the loop swapped many times while every tool kept working between swaps.
    expect(swapping.swaps()).toBeGreaterThan(500);
    expect(n).toBeGreaterThan(400);
    for (const tool of ['file_read', 'head', 'tail', 'grep', 'file_write']) expect(ok.get(tool), tool).toBeGreaterThan(0);
  });
});

describe('checked opens', () => {
  it('still reads, greps and writes inside an env.mounts folder', async () => {
    const cwd = tempDir();
    const mount = tempDir();
    writeFileSync(join(mount, 'm.txt'), 'mounted LINE\n');
    const ctx: ToolRunContext = { step: '0', attempt: 1, cwd, extraRoots: [mount], blobs: new MemoryBlobStore(), emit: () => undefined };
    expect(await runTool({ id: '1', name: 'file_read', args: { path: join(mount, 'm.txt') } }, ctx)).toEqual({ ok: true, output: 'mounted LINE\n' });
    expect(await runTool({ id: '2', name: 'grep', args: { pattern: 'LINE', path: mount, context_lines: 0 } }, ctx)).toEqual({ ok: true, output: `${relative(cwd, mount)}/m.txt:1: mounted LINE` });
    expect(await runTool({ id: '3', name: 'file_write', args: { path: join(mount, 'new', 'n.txt'), content: 'n', create_dirs: true } }, ctx)).toMatchObject({ ok: true });
    expect(readFileSync(join(mount, 'new', 'n.txt'), 'utf8')).toBe('n');
  });

  it('never follows a symlink met inside a folder grep walks, and refuses a FIFO instead of hanging on it', async () => {
    const cwd = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), `${canary}\n`);
    mkdirSync(join(cwd, 'docs'));
    writeFileSync(join(cwd, 'docs', 'a.txt'), 'plain\n');
    symlinkSync(outside, join(cwd, 'docs', 'out'));
    symlinkSync(join(outside, 'secret.txt'), join(cwd, 'docs', 'secret.txt'));
    const ctx: ToolRunContext = { step: '0', attempt: 1, cwd, extraRoots: [], blobs: new MemoryBlobStore(), emit: () => undefined };
    expect(await runTool({ id: '1', name: 'grep', args: { pattern: '.', path: 'docs', context_lines: 0 } }, ctx)).toEqual({ ok: true, output: 'docs/a.txt:1: plain' });
    expect(spawnSync('mkfifo', [join(cwd, 'pipe')]).status).toBe(0);
    // A writer waits on the pipe, so that a reader that does open it gets an answer instead of hanging the test.
    const writer = spawn('sh', ['-c', 'echo from-the-pipe > pipe'], { cwd, stdio: 'ignore' });
    try {
      expect(await runTool({ id: '2', name: 'file_read', args: { path: 'pipe' } }, ctx)).toEqual({ ok: false, output: 'error: pipe is not a regular file' });
    } finally {
      writer.kill('SIGKILL');
    }
  });
});
