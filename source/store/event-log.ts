import { closeSync, fdatasyncSync, ftruncateSync, fstatSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { EngineEvent } from '../engine/events.js';
import { upgradeEvent } from '../engine/event-upgrade.js';
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
 * the file and the line, never a guess at what the line meant.
 */
export function readEventLog(path: string): EngineEvent[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    throw damagedLog(path, `${path} cannot be read (${code ?? (error as Error).message})`);
  }
  // Whatever follows the last newline is empty or a torn append: never durable, never read.
  const durable = bytes.subarray(0, bytes.lastIndexOf(10) + 1);
  let text: string;
  try {
    text = utf8.decode(durable);
  } catch {
    throw damagedLog(path, `${path}: line ${firstBadLine(durable)} is not valid UTF-8 (the event log is damaged)`);
  }
  const events: EngineEvent[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    if (line.length === 0) continue;
    try {
      events.push(upgradeEvent(JSON.parse(line) as EngineEvent));
    } catch {
      throw damagedLog(path, `${path}: line ${i + 1} is not valid JSON (the event log is damaged)`);
    }
  }
  return events;
}

/**
 * How the writer makes an append durable. The real one is fdatasync(2); a test passes a recorder
 * (that still syncs) to check that the sync happens where the durability contract puts it.
 */
export interface FileSync {
  datasync(fd: number): void;
}

export const realFileSync: FileSync = { datasync: (fd) => fdatasyncSync(fd) };

/** Appends events, one JSON line each; `sync` makes everything written so far durable. */
export class EventLogWriter {
  private readonly fd: number;

  constructor(
    private readonly path: string,
    private readonly fileSync: FileSync = realFileSync,
  ) {
    this.fd = openSync(path, 'a+');
    this.dropTornTail();
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
   * the redactor: no key reaches the log, whoever built the event.
   */
  append(event: EngineEvent, sync: boolean): void {
    const line = Buffer.from(`${JSON.stringify(redactEvent(event))}\n`);
    const size = fstatSync(this.fd).size;
    let written = 0;
    try {
      while (written < line.length) written += writeSync(this.fd, line, written, line.length - written);
    } catch (error) {
      if (written > 0 && fstatSync(this.fd).size === size + written) ftruncateSync(this.fd, size);
      throw namingFile(error, this.path);
    }
    if (!sync) return;
    try {
      this.fileSync.datasync(this.fd);
    } catch (error) {
      throw namingFile(error, this.path);
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
