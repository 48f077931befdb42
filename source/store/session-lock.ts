import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fstatSync, linkSync, openSync, readFileSync, readSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { processAlive, processStart as procStart } from './process-liveness.js';
import { writeFileDurable } from './durable-file.js';
import { isWriteRefused } from './write-access.js';

/** What the lock file says about its owner. */
export interface LockOwner {
  pid: number;
  host: string;
  /** /proc/<pid>/stat start time: tells a live owner from a recycled pid. */
  proc_start: string | null;
  started_at: string;
  heartbeat_at: string;
  /** Random per acquisition: a heartbeat checks it still owns the lock. */
  token: string;
  /**
   * The fencing epoch of this acquisition, stamped on every event its holder writes: higher than
   * any epoch the session used before, so events of a superseded holder can be told apart and
   * fenced out. Absent in lock files written before epochs (0).
   */
  epoch?: number;
}

export type LockState =
  | { kind: 'free' }
  | { kind: 'held'; owner: LockOwner }
  | { kind: 'stale'; owner: LockOwner; why: string };

/** Judges a lock: held by a live, heartbeating owner, or stale (dead owner, recycled pid, silent). */
export function judgeLock(owner: LockOwner, timeoutMs: number, now = Date.now()): LockState {
  if (owner.token === unreadableToken) return { kind: 'stale', owner, why: 'its lock file names no owner (damaged, or written by something else)' };
  if (owner.host === hostname()) {
    if (!processAlive(owner.pid)) return { kind: 'stale', owner, why: `its owner (pid ${owner.pid}) is no longer running` };
    const start = procStart(owner.pid);
    if (owner.proc_start && start && start !== owner.proc_start) return { kind: 'stale', owner, why: `pid ${owner.pid} now belongs to another process` };
  }
  const silentMs = now - Date.parse(owner.heartbeat_at);
  if (silentMs > timeoutMs) return { kind: 'stale', owner, why: `its owner's heartbeat stopped ${Math.round(silentMs / 1000)} s ago` };
  return { kind: 'held', owner };
}

/** A lock file that cannot be read, does not parse or is not shaped as a lock cannot name a live owner: it is treated as abandoned. */
const unreadableToken = 'unreadable';
const unreadableOwner = (): LockOwner => ({ pid: 0, host: '', proc_start: null, started_at: new Date(0).toISOString(), heartbeat_at: new Date(0).toISOString(), token: unreadableToken });

/** Shaped as a lock this program writes: `{"pid": "x"}` had been taken for a live owner ("pid x … heartbeat NaNd ago") and held the session for good. */
function isLockOwner(value: unknown): value is LockOwner {
  const owner = value as Partial<LockOwner> | null;
  return (
    typeof owner === 'object' &&
    owner !== null &&
    Number.isInteger(owner.pid) &&
    owner.pid! > 0 &&
    typeof owner.host === 'string' &&
    typeof owner.token === 'string' &&
    typeof owner.started_at === 'string' &&
    typeof owner.heartbeat_at === 'string' &&
    !Number.isNaN(Date.parse(owner.heartbeat_at)) &&
    (owner.proc_start === null || owner.proc_start === undefined || typeof owner.proc_start === 'string') &&
    (owner.epoch === undefined || Number.isInteger(owner.epoch))
  );
}

function readOwner(path: string): LockOwner | undefined {
  try {
    const owner: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isLockOwner(owner) ? owner : unreadableOwner();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return unreadableOwner();
  }
}

/** The lock file a holder last found its own token in, kept open (see SessionLock.stillOwned). */
interface HeldLockFile {
  fd: number;
  dev: number;
  ino: number;
  bytes: Buffer;
  /** Room for one byte more than `bytes`, so a file that grew is told apart. */
  scratch: Buffer;
}

/** Places a complete lock file at `path` only if none exists: link(2) is atomic and never torn. */
function linkExclusive(path: string, content: string): boolean {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // Inside the try: a write that fails half-way (disk full) leaves no temp file behind either.
    writeFileSync(temp, content, { mode: 0o600 });
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

export type AcquireResult = { acquired: true; lock: SessionLock; tookOverFrom?: { owner: LockOwner; why: string } } | { acquired: false; state: LockState & { kind: 'held' } };

/**
 * One session's lock: `sessions/<id>/lock`, owner pid + host + heartbeat. Acquired with an atomic
 * link; a stale lock is taken over under a short-lived takeover guard so that two resumers racing
 * for the same stale lock cannot both win.
 */
export class SessionLock {
  private timer?: NodeJS.Timeout;
  private held?: HeldLockFile;

  private constructor(
    private readonly path: string,
    private owner: LockOwner,
  ) {}

  static inspect(dir: string, timeoutMs: number): LockState {
    const path = join(dir, 'lock');
    // Listings inspect thousands of sessions: a stat is far cheaper than a failed read.
    if (!existsSync(path)) return { kind: 'free' };
    const owner = readOwner(path);
    return owner ? judgeLock(owner, timeoutMs) : { kind: 'free' };
  }

  /**
   * Takes the lock with a new epoch: above `floorEpoch` (the highest epoch in the session's event
   * log), above the epoch of a stale lock it takes over, and above every epoch recorded in the
   * session's `epoch` file — which keeps the epochs of holders that never wrote an event (they
   * froze first) even after `sessions unlock` removed their lock.
   */
  static acquire(dir: string, timeoutMs: number, floorEpoch = 0): AcquireResult {
    const path = join(dir, 'lock');
    const now = new Date().toISOString();
    const owner: LockOwner = { pid: process.pid, host: hostname(), proc_start: procStart(process.pid), started_at: now, heartbeat_at: now, token: randomBytes(8).toString('hex') };
    const acquired = (tookOverFrom?: { owner: LockOwner; why: string }): AcquireResult => {
      const lock = new SessionLock(path, owner);
      // Recorded before the holder writes anything, so no later holder can reuse the epoch.
      if (lock.stillOwned()) raiseEpochMark(dir, owner.epoch ?? 0);
      return tookOverFrom ? { acquired: true, lock, tookOverFrom } : { acquired: true, lock };
    };
    for (let tries = 0; tries < 3; tries++) {
      owner.epoch = Math.max(floorEpoch, readEpochMark(dir)) + 1;
      if (linkExclusive(path, JSON.stringify(owner))) return acquired();
      const current = readOwner(path);
      if (!current) continue; // released between our link and our read: try again
      const state = judgeLock(current, timeoutMs);
      if (state.kind === 'held') return { acquired: false, state };
      owner.epoch = Math.max(owner.epoch, (current.epoch ?? 0) + 1);
      if (state.kind === 'stale' && SessionLock.takeOver(path, current, owner)) return acquired({ owner: current, why: state.why });
    }
    const state = SessionLock.inspect(dir, timeoutMs);
    if (state.kind === 'held') return { acquired: false, state };
    throw new Error(`could not acquire ${path}: it keeps changing hands`);
  }

  /** Replaces a stale lock, if it is still the one judged stale, while holding the takeover guard. */
  private static takeOver(path: string, stale: LockOwner, owner: LockOwner): boolean {
    const guard = `${path}.takeover`;
    try {
      // A guard left by a process that died mid-takeover (it holds it for microseconds) expires.
      if (Date.now() - statSync(guard).mtimeMs > 10_000) unlinkSync(guard);
    } catch {
      // no guard
    }
    if (!linkExclusive(guard, String(process.pid))) return false;
    try {
      if (readOwner(path)?.token !== stale.token) return false;
      unlinkSync(path);
      return linkExclusive(path, JSON.stringify(owner));
    } finally {
      unlinkSync(guard);
    }
  }

  /** The fencing epoch this holder stamps on its events. */
  get epoch(): number {
    return this.owner.epoch ?? 0;
  }

  /** Whether the session's folder is gone (`acode sessions delete --force` under a live run). */
  sessionDeleted(): boolean {
    return !existsSync(dirname(this.path));
  }

  lockNow(timeoutMs: number): LockState {
    return SessionLock.inspect(dirname(this.path), timeoutMs);
  }

  /**
   * True while the lock file still carries this process's token. A holder this one superseded can
   * finish a heartbeat it began before it froze, renaming its own lock file back over this one's:
   * a lock file of a lower epoch, while no newer holder exists, is put right instead of given up.
   */
  stillOwned(): boolean {
    if (this.held && this.heldUnchanged(this.held)) return true;
    const current = this.readHolding();
    if (current?.token === this.owner.token) return true;
    const strayFromSuperseded = current?.epoch !== undefined && current.epoch < this.epoch && readEpochMark(dirname(this.path)) <= this.epoch;
    return strayFromSuperseded && this.writeOwn();
  }

  /**
   * The cheap answer of stillOwned, one stat and one small read: the lock file this holder last
   * found its token in is held open, so its inode cannot be freed and handed to another file. If
   * the path still names that inode and the inode still holds the bytes read then, nothing has
   * changed the lock. Every way another process takes a lock — a new file linked or renamed into
   * place, the old one unlinked first (takeover, `sessions unlock`, a late heartbeat of a superseded
   * holder), the session folder deleted — makes the path name another inode or none; a rewrite in
   * place changes the bytes. Any doubt falls back to reading the file again.
   */
  private heldUnchanged(held: HeldLockFile): boolean {
    try {
      const stat = statSync(this.path, { throwIfNoEntry: false });
      if (stat?.ino !== held.ino || stat.dev !== held.dev) return false;
      const read = readSync(held.fd, held.scratch, 0, held.scratch.length, 0);
      return read === held.bytes.length && held.scratch.subarray(0, read).equals(held.bytes);
    } catch {
      return false;
    }
  }

  /** Reads the lock file's owner, keeping the file open when it is this holder's (see heldUnchanged). */
  private readHolding(): LockOwner | undefined {
    this.letGo();
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : unreadableOwner();
    }
    let owner: LockOwner;
    let bytes: Buffer;
    try {
      bytes = readFileSync(fd);
      owner = JSON.parse(bytes.toString('utf8')) as LockOwner;
    } catch {
      closeSync(fd);
      return unreadableOwner();
    }
    if (owner.token !== this.owner.token) {
      closeSync(fd);
      return owner;
    }
    const { dev, ino } = fstatSync(fd);
    this.held = { fd, dev, ino, bytes, scratch: Buffer.alloc(bytes.length + 1) };
    return owner;
  }

  private letGo(): void {
    if (this.held) closeSync(this.held.fd);
    this.held = undefined;
  }

  /**
   * Writes this holder's lock file; false if a newer holder exists (the epoch mark is above ours):
   * then this write was itself a stray one — that holder puts its lock back — and this one has lost.
   */
  private writeOwn(): boolean {
    writeFileDurable(this.path, JSON.stringify(this.owner));
    return readEpochMark(dirname(this.path)) <= this.epoch;
  }

  /**
   * Refreshes the heartbeat every `intervalMs`; calls `onLost` if another process took the lock.
   * A process frozen past the timeout (Ctrl+Z, a laptop asleep) goes on if nobody did: the lock
   * file is still its own, and the epoch mark, which every taker raises before its lock goes in,
   * is checked after the write (writeOwn). A taker that read the lock as stale just before that
   * write takes it at once after: this holder sees it at its next beat, and what it appends
   * meanwhile is fenced out by epoch, as for any holder that stalls between beats.
   */
  startHeartbeat(intervalMs: number, onLost: () => void): void {
    this.timer = setInterval(() => {
      if (!this.stillOwned()) {
        this.stopHeartbeat();
        onLost();
        return;
      }
      this.owner = { ...this.owner, heartbeat_at: new Date().toISOString() };
      let kept: boolean;
      try {
        // Frozen between the check and the rename, this process may have just replaced a newer holder's lock.
        kept = this.writeOwn();
      } catch (error) {
        // A beat that cannot be written because a newer holder removed this process's temp file
        // means the lock is lost. A full (or read-only) disk: the run stops, paused, at its next
        // journal write, which says why; thrown from this timer it would crash the process and
        // leave the session running.
        kept = this.stillOwned();
        if (kept && !isWriteRefused(error)) throw error;
      }
      if (!kept) {
        this.stopHeartbeat();
        onLost();
      }
    }, intervalMs);
    this.timer.unref();
  }

  stopHeartbeat(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Removes the lock if it is still ours. */
  release(): void {
    this.stopHeartbeat();
    if (this.stillOwned()) unlinkSync(this.path);
    this.letGo();
  }

  /** Forcibly removes whatever lock a session has (`acode sessions unlock`). */
  static forceRemove(dir: string): LockOwner | undefined {
    const path = join(dir, 'lock');
    const owner = readOwner(path);
    if (!owner) return undefined;
    // Its holder may be frozen before its first event: the next holder must still get a higher epoch.
    // Above the holder's own, too: a heartbeat of it that was mid-write writes its lock file back
    // after this unlink; its check of the mark (writeOwn) then fails, and it gives the lock up.
    raiseEpochMark(dir, (owner.epoch ?? 0) + 1);
    unlinkSync(path);
    return owner;
  }
}

/** `sessions/<id>/epoch`: the highest lock epoch ever handed out for the session. */
export function readEpochMark(dir: string): number {
  try {
    const value = Number(readFileSync(join(dir, 'epoch'), 'utf8'));
    return Number.isSafeInteger(value) && value > 0 ? value : 0;
  } catch {
    return 0;
  }
}

/** Raises the epoch mark to `epoch` (never lowers it); durable, since the lock file it outlives is. */
function raiseEpochMark(dir: string, epoch: number): void {
  if (epoch > readEpochMark(dir)) writeFileDurable(join(dir, 'epoch'), String(epoch));
}
