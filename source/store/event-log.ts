import { closeSync, fdatasync, fdatasyncSync, ftruncateSync, fstatSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { basename, dirname } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { EngineEvent } from '../engine/events.js';
import { upgradeEvent } from '../engine/event-upgrade.js';
import { eventShapeProblem } from '../engine/event-shape.js';
import { redactEvent } from '../secrets/event-redaction.js';
import { namingFile } from './durable-file.js';

/** The session's log cannot be read as it is: say where, and what a person can do about it. */
function damagedLog(path: string, what: string): AcodeError {
  const id = basename(dirname(path));
  return new AcodeError(
    `session ${id} cannot be read: ${what}. Restore ${path} from a backup, or delete the session with 'acode sessions delete ${id} --force'`,
    ExitCode.failure,
    'ACODE-RESUME-005',
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The 1-based number of the first line of `bytes` that is not valid UTF-8. */
function firstBadLine(bytes: Buffer): number {
  let line = 1;
  for (let start = 0; start < bytes.length; line++) {
    const end = bytes.indexOf(10, start);
    const stop = end === -1 ? bytes.length : end;
    try {
      utf8.decode(bytes.subarray(start, stop));
    } catch {
      return line;
    }
    start = stop + 1;
  }
  return line;
}

/**
 * Reads events.jsonl. A crash mid-append can leave the last line torn: it is ignored (that event
 * never became durable). A bad line anywhere else means the log was damaged: an AcodeError naming
 * the file and the line, never a guess at what the line meant. `limitBytes`: read no further.
 */
export function readEventLog(path: string, limitBytes?: number): EngineEvent[] {
  return readEventLogFrom(path, 0, limitBytes).events;
}

/** The file's bytes from `from` up to `limit` (or its end), as they are now. */
function readRange(path: string, from: number, limit?: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const end = Math.min(limit ?? Number.POSITIVE_INFINITY, fstatSync(fd).size);
    const bytes = Buffer.allocUnsafe(Math.max(0, end - from));
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * The events of the log from byte `from` (the start of a line) up to `limitBytes`, and `end`: the
 * byte after the last whole line read — where a later read goes on (a torn last line is read again then, whole).
 */
export function readEventLogFrom(path: string, from: number, limitBytes?: number): { events: EngineEvent[]; end: number } {
  let bytes: Buffer;
  try {
    // Only the bytes from `from` up to `limitBytes` (the log as it stood when its size was taken;
    // appends go on behind it): a push that goes on from its cursor reads what was appended since,
    // never the whole log again.
    bytes = from > 0 || limitBytes !== undefined ? readRange(path, from, limitBytes) : readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { events: [], end: from };
    throw damagedLog(path, `${path} cannot be read (${code ?? (error as Error).message})`);
  }
  // Whatever follows the last newline is empty or a torn append: never durable, never read.
  const durable = bytes.subarray(0, bytes.lastIndexOf(10) + 1);
  const where = from > 0 ? ` (counting from byte ${from})` : '';
  let text: string;
  try {
    text = utf8.decode(durable);
  } catch {
    throw damagedLog(path, `${path}: line ${firstBadLine(durable)}${where} is not valid UTF-8 (the event log is damaged)`);
  }
  const events: EngineEvent[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    if (line.length === 0) continue;
    let event: EngineEvent;
    try {
      event = upgradeEvent(JSON.parse(line) as EngineEvent);
    } catch {
      throw damagedLog(path, `${path}: line ${i + 1}${where} is not valid JSON (the event log is damaged)`);
    }
    const problem = eventShapeProblem(event);
    if (problem) throw damagedLog(path, `${path}: line ${i + 1}${where} is not a whole event: ${problem} (the event log is damaged)`);
    events.push(event);
  }
  return { events, end: from + durable.length };
}

/**
 * How the writer makes appends durable. The real one is fdatasync(2), inline or on libuv's thread
 * pool; a test passes a recorder (that still syncs) to check that the syncs happen where the
 * durability contract puts them, and how many there are.
 */
export interface FileSync {
  datasync(fd: number): void;
  /** The same off the event loop, so other work goes on while the disk flushes. Absent: `datasync` runs in its place. */
  datasyncAsync?(fd: number): Promise<void>;
}

export const realFileSync: FileSync = { datasync: (fd) => fdatasyncSync(fd), datasyncAsync: promisify(fdatasync) };

/**
 * Appends events, one JSON line each. An append is a write(2) and nothing more: once it returns,
 * a process killed with SIGKILL loses nothing (the kernel holds the bytes); only a power cut or a
 * kernel crash can take back what is not yet fdatasync'ed. `sync` (inline) and `flush` (group
 * commit) make every line appended so far durable against that too.
 */
export class EventLogWriter {
  private readonly fd: number;
  /** Lines this writer has appended, and how many of them an fdatasync is known to cover. */
  private appended = 0;
  private synced = 0;
  /** The fdatasync on the thread pool, if one runs: at most one at a time (see flush). */
  private inFlight?: Promise<void>;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly fileSync: FileSync = realFileSync,
  ) {
    this.fd = openSync(path, 'a+');
    this.dropTornTail();
  }

  /** Lines appended by this writer so far: a position in the log that durability can be asked about. */
  get position(): number {
    return this.appended;
  }

  /** Whether every line up to `position` is known to be fdatasync'ed. */
  isDurable(position: number): boolean {
    return this.synced >= position;
  }

  /** Cuts a torn last line left by a crash, so the next event starts on a line of its own. */
  private dropTornTail(): void {
    const size = fstatSync(this.fd).size;
    if (size === 0) return;
    const window = Buffer.alloc(Math.min(size, 1 << 16));
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - window.length);
      const read = readSync(this.fd, window, 0, end - start, start);
      const newline = window.subarray(0, read).lastIndexOf(10);
      if (newline >= 0) {
        const keep = start + newline + 1;
        if (keep !== size) ftruncateSync(this.fd, keep);
        return;
      }
      end = start;
    }
    ftruncateSync(this.fd, 0);
  }

  /**
   * A write that fails half-way (disk full) is cut back off, so the log never keeps half a line —
   * but only while that half line is the file's end: a process that lost the lock must never cut
   * off events the new holder appended meanwhile. A line written whole whose sync failed is kept
   * (the pause that follows is rebuilt from the log as it stands). Every string in the event passes
   * the redactor: no key reaches the log, whoever built the event. With `sync`, the line (and every
   * one before it) is durable when this returns.
   */
  append(event: EngineEvent, sync = false): void {
    const line = Buffer.from(`${JSON.stringify(redactEvent(event))}\n`);
    const size = fstatSync(this.fd).size;
    let written = 0;
    try {
      while (written < line.length) written += writeSync(this.fd, line, written, line.length - written);
    } catch (error) {
      if (written > 0 && fstatSync(this.fd).size === size + written) ftruncateSync(this.fd, size);
      throw namingFile(error, this.path);
    }
    this.appended++;
    if (sync) this.sync();
  }

  /** Makes every line appended so far durable before returning: for an event that guards a synchronous effect. */
  sync(): void {
    const covers = this.appended;
    if (this.synced >= covers) return;
    try {
      this.fileSync.datasync(this.fd);
    } catch (error) {
      throw namingFile(error, this.path);
    }
    this.synced = Math.max(this.synced, covers);
  }

  /**
   * Resolves once every line appended before the call is durable. Group commit: one fdatasync runs
   * at a time, off the event loop; callers that arrive while it runs (other branches, each awaiting
   * its own step_started) share the next one, which covers every line appended by the time it
   * starts. A flush with nothing new to cover resolves without a sync. A failed fdatasync rejects
   * every flush waiting on it; the next flush tries again.
   */
  async flush(): Promise<void> {
    const target = this.appended;
    while (this.synced < target) {
      // Cleared once settled (a callback, so never before it is set), so the first caller to wake starts the next.
      this.inFlight ??= this.syncOffLoop().finally(() => {
        this.inFlight = undefined;
      });
      await this.inFlight;
    }
  }

  private async syncOffLoop(): Promise<void> {
    // Taken before the sync starts: a line appended while it runs may or may not be covered, so it is not counted.
    const covers = this.appended;
    try {
      if (this.fileSync.datasyncAsync) await this.fileSync.datasyncAsync(this.fd);
      else this.fileSync.datasync(this.fd);
      this.synced = Math.max(this.synced, covers);
    } catch (error) {
      throw namingFile(error, this.path);
    }
  }

  /** Closes the log; a sync still running on the thread pool finishes first (its descriptor must not be reused under it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const running = this.inFlight;
    if (!running) closeSync(this.fd);
    else void running.finally(() => closeSync(this.fd)).catch(() => {});
  }
}
