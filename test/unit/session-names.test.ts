import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processStart } from '../../source/store/process-liveness.js';
import { SessionNames } from '../../source/store/session-names.js';
import { smallTmpfs, tmpfsUnavailable } from '../helpers/small-tmpfs.js';
import { tempDir } from '../helpers/temp-dir.js';

function names() {
  const home = tempDir();
  const exists = (id: string) => {
    try {
      return readFileSync(join(home, 'sessions', id, 'marker'), 'utf8') === id;
    } catch {
      return false;
    }
  };
  const makeSession = (id: string) => {
    mkdirSync(join(home, 'sessions', id), { recursive: true });
    writeFileSync(join(home, 'sessions', id, 'marker'), id);
  };
  return { home, store: new SessionNames(home, exists), makeSession };
}

/** A pid no process has: a child that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('session names', () => {
  it('never takes over a claim that is still being written (two runs at once both got the name)', () => {
    const { home, store } = names();
    // As another acode has it between creating the file and writing it: empty, just now.
    mkdirSync(join(home, 'names'), { recursive: true });
    writeFileSync(join(home, 'names', 'race'), '');
    expect(() => store.claim('race', 'bbbbbbbbbbbbbbbb')).toThrowError(/the name 'race' is being given to a session another acode is creating now/);
    expect(readFileSync(join(home, 'names', 'race'), 'utf8')).toBe('');
  });

  it('writes a claim whole before the name shows it, leaving nothing else behind', () => {
    const { home, store } = names();
    store.claim('whole', 'aaaaaaaaaaaaaaaa');
    expect(readFileSync(join(home, 'names', 'whole'), 'utf8')).toMatch(/^aaaaaaaaaaaaaaaa \d+ \S+ \S+ \d+\n$/);
    expect(readdirSync(join(home, 'names'))).toEqual(['whole']);
  });

  it('finds the session a name was given to, and refuses the name to another', () => {
    const { store, makeSession } = names();
    store.claim('nightly', 'aaaaaaaaaaaaaaaa');
    makeSession('aaaaaaaaaaaaaaaa');
    expect(store.lookup('nightly')).toBe('aaaaaaaaaaaaaaaa');
    expect(() => store.claim('nightly', 'bbbbbbbbbbbbbbbb')).toThrowError(/the name 'nightly' is taken by session aaaaaaaaaaaaaaaa/);
  });

  it('gives a name back once its claimant died before its session existed', async () => {
    const { home, store } = names();
    mkdirSync(join(home, 'names'));
    writeFileSync(join(home, 'names', 'orphan'), `cccccccccccccccc ${await deadPid()}\n`);
    expect(store.lookup('orphan')).toBeUndefined();
    store.claim('orphan', 'dddddddddddddddd');
    expect(readFileSync(join(home, 'names', 'orphan'), 'utf8')).toMatch(new RegExp(`^dddddddddddddddd ${process.pid} ${processStart(process.pid)} ${hostname()} \\d+\n$`));
  });

  it('gives a name back once its claimant pid belongs to another process, or its claim outlived any creation', () => {
    const { home, store } = names();
    mkdirSync(join(home, 'names'));
    // This process runs, but did not start when the claim says its creator did: the pid was reused.
    writeFileSync(join(home, 'names', 'recycled'), `cccccccccccccccc ${process.ppid} 1 ${hostname()} ${Date.now()}\n`);
    store.claim('recycled', 'dddddddddddddddd');
    expect(readFileSync(join(home, 'names', 'recycled'), 'utf8')).toMatch(/^dddddddddddddddd /);
    // The creator runs still, but a session is created in milliseconds: two minutes on, the claim is abandoned.
    writeFileSync(join(home, 'names', 'old'), `cccccccccccccccc ${process.ppid} ${processStart(process.ppid)} ${hostname()} ${Date.now() - 120_000}\n`);
    store.claim('old', 'dddddddddddddddd');
    // A claim of an older acode says only a pid, which may be anyone's now.
    writeFileSync(join(home, 'names', 'legacy'), `cccccccccccccccc ${process.ppid}\n`);
    store.claim('legacy', 'dddddddddddddddd');
    expect(readFileSync(join(home, 'names', 'legacy'), 'utf8')).toMatch(/^dddddddddddddddd /);
  });

  it('offers as "did you mean" only names whose session exists', () => {
    const { home, store, makeSession } = names();
    store.claim('kept', 'aaaaaaaaaaaaaaaa');
    makeSession('aaaaaaaaaaaaaaaa');
    mkdirSync(join(home, 'names'), { recursive: true });
    writeFileSync(join(home, 'names', 'gone'), `bbbbbbbbbbbbbbbb 1 - ${hostname()} ${Date.now() - 120_000}\n`);
    expect(store.all()).toEqual(['kept']);
  });

  it('keeps a name whose claimant is still creating its session', async () => {
    const { home, store } = names();
    const creator = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((resolve) => creator.on('spawn', resolve));
      mkdirSync(join(home, 'names'));
      writeFileSync(join(home, 'names', 'busy'), `eeeeeeeeeeeeeeee ${creator.pid} ${processStart(creator.pid!)} ${hostname()} ${Date.now()}\n`);
      expect(() => store.claim('busy', 'ffffffffffffffff')).toThrowError(/being given to session eeeeeeeeeeeeeeee, which process \d+ is creating now/);
    } finally {
      creator.kill('SIGKILL');
    }
  });

  it('frees a name only for the session that holds it', () => {
    const { store, makeSession } = names();
    store.claim('mine', 'aaaaaaaaaaaaaaaa');
    makeSession('aaaaaaaaaaaaaaaa');
    store.release('mine', 'bbbbbbbbbbbbbbbb');
    expect(store.lookup('mine')).toBe('aaaaaaaaaaaaaaaa');
    store.release('mine', 'aaaaaaaaaaaaaaaa');
    expect(store.lookup('mine')).toBeUndefined();
    expect(store.all()).toEqual([]);
  });
});

describe.skipIf(tmpfsUnavailable !== null)('a name claimed on a full disk (a real tmpfs)', () => {
  it('a claim that cannot be written leaves no temp claim file behind in names/', () => {
    const home = smallTmpfs('256k');
    const names = new SessionNames(home, () => false);
    mkdirSync(names.dir, { recursive: true });
    // Fill the disk: the temp claim file can be created (an inode), but not written.
    const filler = openSync(join(home, 'filler'), 'w');
    try {
      for (;;) writeSync(filler, Buffer.alloc(4096));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(filler);
    }
    expect(() => names.claim('nightly', 'aaaaaaaaaaaaaaaa')).toThrow();
    rmSync(join(home, 'filler'));
    // Nothing ever removes a `.nightly.<pid>.<uuid>.claim` left here: each failed run adds one.
    expect(readdirSync(names.dir)).toEqual([]);
  });
});
