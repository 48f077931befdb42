import { closeSync, fdatasyncSync, ftruncateSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type { EngineEvent } from '../engine/events.js';
import { secrets } from '../secrets/redactor.js';
import { writeAll } from './durable-file.js';

/**
 * Reads events.jsonl. A crash mid-append can leave the last line torn: it is ignored (that event
 * never became durable). A bad line anywhere else means the log was damaged, and throws.
 */
export function readEventLog(path: string): EngineEvent[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // Whatever follows the last newline is empty or a torn append: never durable, never read.
  const complete = text.split('\n').slice(0, -1);
  return complete.filter((line) => line.length > 0).map((line, i) => {
    try {
      return JSON.parse(line) as EngineEvent;
    } catch {
      throw new Error(`${path}: line ${i + 1} is not valid JSON; the event log is damaged`);
    }
  });
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
    path: string,
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
   * A failed append (disk full) is cut back off, so the log never keeps half a line. Every string
   * in the event passes the redactor: no key reaches the log, whoever built the event.
   */
  append(event: EngineEvent, sync: boolean): void {
    const size = fstatSync(this.fd).size;
    try {
      writeAll(this.fd, Buffer.from(`${secrets.stringify(event)}
`));
      if (sync) this.fileSync.datasync(this.fd);
    } catch (error) {
      ftruncateSync(this.fd, size);
      throw error;
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}
