import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionNames } from '../../source/store/session-names.js';
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
    expect(readFileSync(join(home, 'names', 'orphan'), 'utf8')).toBe(`dddddddddddddddd ${process.pid}\n`);
  });

  it('keeps a name whose claimant is still creating its session', () => {
    const { home, store } = names();
    const creator = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      mkdirSync(join(home, 'names'));
      writeFileSync(join(home, 'names', 'busy'), `eeeeeeeeeeeeeeee ${creator.pid}\n`);
      expect(() => store.claim('busy', 'ffffffffffffffff')).toThrowError(/taken by session eeeeeeeeeeeeeeee/);
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
