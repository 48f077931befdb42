import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeOwner } from '../../source/session/lock-owner.js';
import { judgeLock, SessionLock, type LockOwner } from '../../source/store/session-lock.js';
import { tempDir } from '../helpers/temp-dir.js';

const owner = (overrides: Partial<LockOwner>): LockOwner => ({
  pid: process.pid, host: hostname(), proc_start: null, started_at: new Date().toISOString(), heartbeat_at: new Date().toISOString(), token: 't', ...overrides,
});

describe('the session lock', () => {
  it('is held by a live process with a fresh heartbeat', () => {
    expect(judgeLock(owner({}), 60_000).kind).toBe('held');
  });

  it('is stale when its owner has exited', () => {
    const exited = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const state = judgeLock(owner({ pid: Number(exited.stdout.trim()) }), 60_000);
    expect(state).toMatchObject({ kind: 'stale', why: expect.stringContaining('no longer running') });
  });

  it('is stale when its owner is a zombie nobody reaped', async () => {
    // `sleep` replaces the shell and never waits for the child the shell started: it stays a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
      const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
      while (state() !== 'Z') await new Promise((resolve) => setTimeout(resolve, 10));
      expect(judgeLock(owner({ pid }), 60_000)).toMatchObject({ kind: 'stale', why: expect.stringContaining('no longer running') });
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('is stale when its pid now belongs to another process', () => {
    expect(judgeLock(owner({ proc_start: '1' }), 60_000)).toMatchObject({ kind: 'stale', why: expect.stringContaining('another process') });
  });

  it('is stale when the heartbeat is older than the timeout', () => {
    expect(judgeLock(owner({ host: 'elsewhere', heartbeat_at: new Date(Date.now() - 5000).toISOString() }), 1000).kind).toBe('stale');
  });

  it('is acquired once, refused while held, and free again after release', () => {
    const dir = tempDir();
    const first = SessionLock.acquire(dir, 60_000);
    expect(first.acquired).toBe(true);
    const second = SessionLock.acquire(dir, 60_000);
    expect(second).toMatchObject({ acquired: false, state: { kind: 'held', owner: { pid: process.pid } } });
    if (first.acquired) first.lock.release();
    expect(SessionLock.inspect(dir, 60_000).kind).toBe('free');
  });

  it('takes over a stale lock and says why', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'lock'), JSON.stringify(owner({ host: 'elsewhere', heartbeat_at: new Date(0).toISOString(), token: 'old' })));
    const result = SessionLock.acquire(dir, 60_000);
    expect(result).toMatchObject({ acquired: true, tookOverFrom: { owner: { token: 'old' }, why: expect.stringContaining('heartbeat stopped') } });
    expect(JSON.parse(readFileSync(join(dir, 'lock'), 'utf8')).token).not.toBe('old');
  });

  it.each(['{"pid": "x"}', '{}', '[]', 'null', 'garbage', `{"pid": ${process.pid}, "host": "h", "token": "t", "started_at": "s", "heartbeat_at": "not a date"}`])(
    'takes a lock file not shaped as a lock (%s) for one that names no owner: stale, taken over, never "pid x … heartbeat NaNd ago"',
    (text) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'lock'), text);
      expect(SessionLock.inspect(dir, 60_000)).toMatchObject({ kind: 'stale', why: expect.stringContaining('names no owner') });
      expect(describeOwner((SessionLock.inspect(dir, 60_000) as { owner: LockOwner }).owner)).toBe('a lock file that names no owner');
      const result = SessionLock.acquire(dir, 60_000);
      expect(result.acquired).toBe(true);
      if (result.acquired) result.lock.release();
    },
  );

  it('notices when another process has taken the lock', () => {
    const dir = tempDir();
    const result = SessionLock.acquire(dir, 60_000);
    if (!result.acquired) throw new Error('not acquired');
    expect(result.lock.stillOwned()).toBe(true);
    writeFileSync(join(dir, 'lock'), JSON.stringify(owner({ token: 'someone-else' })));
    expect(result.lock.stillOwned()).toBe(false);
    result.lock.release(); // not ours: left in place
    expect(JSON.parse(readFileSync(join(dir, 'lock'), 'utf8')).token).toBe('someone-else');
  });

  it('notices a takeover that renames a lock file of the same size over its own (the way acode replaces it), checked many times in a row', () => {
    const dir = tempDir();
    const result = SessionLock.acquire(dir, 60_000);
    if (!result.acquired) throw new Error('not acquired');
    for (let i = 0; i < 100; i++) expect(result.lock.stillOwned()).toBe(true);
    const mine = readFileSync(join(dir, 'lock'), 'utf8');
    const token = (JSON.parse(mine) as LockOwner).token;
    // Same length, same place: only the token differs, as a taker's would.
    writeFileSync(join(dir, 'lock.new'), mine.replace(token, token.replace(/./g, (c) => (c === 'a' ? 'b' : 'a'))));
    renameSync(join(dir, 'lock.new'), join(dir, 'lock'));
    expect(result.lock.stillOwned()).toBe(false);
  });

  it('notices that its session folder was deleted', () => {
    const dir = join(tempDir(), 'session');
    mkdirSync(dir);
    const result = SessionLock.acquire(dir, 60_000);
    if (!result.acquired) throw new Error('not acquired');
    expect(result.lock.stillOwned()).toBe(true);
    rmSync(dir, { recursive: true });
    expect(result.lock.stillOwned()).toBe(false);
  });

  it('still holds its lock after its own heartbeat replaced the file', async () => {
    const dir = tempDir();
    const result = SessionLock.acquire(dir, 60_000);
    if (!result.acquired) throw new Error('not acquired');
    const before = readFileSync(join(dir, 'lock'), 'utf8');
    result.lock.startHeartbeat(5, () => {
      throw new Error('lost');
    });
    while (readFileSync(join(dir, 'lock'), 'utf8') === before) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(result.lock.stillOwned()).toBe(true);
    result.lock.release();
    expect(SessionLock.inspect(dir, 60_000).kind).toBe('free');
  });
});

describe('lock epochs', () => {
  const take = (dir: string, floor = 0) => {
    const result = SessionLock.acquire(dir, 60_000, floor);
    if (!result.acquired) throw new Error('not acquired');
    return result.lock;
  };

  it('rise with every acquisition, and are written into the lock file', () => {
    const dir = tempDir();
    const first = take(dir);
    expect(first.epoch).toBe(1);
    expect(JSON.parse(readFileSync(join(dir, 'lock'), 'utf8')).epoch).toBe(1);
    first.release();
    expect(take(dir).epoch).toBe(2);
  });

  it('go above the highest epoch in the event log', () => {
    expect(take(tempDir(), 9).epoch).toBe(10);
  });

  it('go above the epoch of a stale lock taken over, though its holder never wrote an event', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'lock'), JSON.stringify(owner({ host: 'elsewhere', heartbeat_at: new Date(0).toISOString(), token: 'old', epoch: 7 })));
    expect(take(dir, 3).epoch).toBe(8);
  });

  it("go above the epoch of a lock removed by 'sessions unlock', whose holder may still wake up", () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'lock'), JSON.stringify(owner({ token: 'frozen', epoch: 5 })));
    SessionLock.forceRemove(dir);
    expect(take(dir, 2).epoch).toBeGreaterThan(5);
  });

  it("make a holder whose heartbeat wrote its lock back after 'sessions unlock' removed it give the lock up at its next beat", async () => {
    const dir = tempDir();
    const holder = take(dir);
    const itsFile = readFileSync(join(dir, 'lock'), 'utf8');
    SessionLock.forceRemove(dir);
    // Its heartbeat checked the lock just before the unlock; the rename of its write lands just after.
    writeFileSync(join(dir, 'lock'), itsFile);
    await new Promise<void>((resolve) => holder.startHeartbeat(10, resolve));
    // Giving up, it removes the lock file it wrote back: the next resume finds the session free.
    holder.release();
    expect(SessionLock.inspect(dir, 60_000).kind).toBe('free');
    expect(take(dir).epoch).toBeGreaterThan(holder.epoch);
  });

  it("are how a holder takes its lock back when a superseded holder's late heartbeat renames an old lock file over it", () => {
    const dir = tempDir();
    const old = take(dir);
    const oldFile = readFileSync(join(dir, 'lock'), 'utf8');
    SessionLock.forceRemove(dir);
    const current = take(dir);
    // The old holder froze inside its heartbeat's write; awake, its rename lands.
    writeFileSync(join(dir, 'lock'), oldFile);
    expect(old.stillOwned()).toBe(true); // its token: only the current holder can tell
    expect(current.stillOwned()).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'lock'), 'utf8'))).toMatchObject({ epoch: current.epoch });
    expect(old.stillOwned()).toBe(false);
  });

  it('make a superseded holder that finds its own lock file back give it up at its next heartbeat', async () => {
    const dir = tempDir();
    const old = take(dir);
    const oldFile = readFileSync(join(dir, 'lock'), 'utf8');
    SessionLock.forceRemove(dir);
    take(dir).stopHeartbeat();
    writeFileSync(join(dir, 'lock'), oldFile);
    await new Promise<void>((resolve) => old.startHeartbeat(10, resolve));
  });
});

describe('the heartbeat', () => {
  /** Freezes the event loop for `ms`, as Ctrl+Z or a suspended laptop would: no timer runs. */
  const freeze = (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // busy: no timer can run
    }
  };

  it('beats on after the process was frozen past the timeout if nobody took the lock meanwhile', async () => {
    const dir = tempDir();
    const result = SessionLock.acquire(dir, 100);
    if (!result.acquired) throw new Error('not acquired');
    let lost = false;
    result.lock.startHeartbeat(10, () => (lost = true));
    freeze(250);
    const frozenAt = Date.now();
    while (Date.parse(JSON.parse(readFileSync(join(dir, 'lock'), 'utf8')).heartbeat_at) < frozenAt) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(lost).toBe(false);
    expect(result.lock.stillOwned()).toBe(true);
    expect(SessionLock.inspect(dir, 100).kind).toBe('held');
    result.lock.release();
  });

  it('gives the lock up, without beating again, when another process took it while it was frozen', async () => {
    const dir = tempDir();
    const result = SessionLock.acquire(dir, 100);
    if (!result.acquired) throw new Error('not acquired');
    const lost = new Promise<void>((resolve) => result.lock.startHeartbeat(10, resolve));
    freeze(150);
    const taker = SessionLock.acquire(dir, 100);
    if (!taker.acquired) throw new Error('the lock did not go stale');
    const taken = readFileSync(join(dir, 'lock'), 'utf8');
    await lost;
    result.lock.stopHeartbeat();
    expect(readFileSync(join(dir, 'lock'), 'utf8')).toBe(taken);
    expect(taker.lock.stillOwned()).toBe(true);
    taker.lock.release();
  });
});
