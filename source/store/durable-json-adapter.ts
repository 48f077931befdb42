import { readFileSync } from 'node:fs';
import type { SyncAdapter } from 'lowdb';
import { writeFileDurable } from './durable-file.js';
import type { FileStamp } from './file-mtime.js';
import { secrets } from '../secrets/redactor.js';

/**
 * lowdb adapter whose writes survive crashes and power cuts: lowdb's stock JSONFile adapter
 * renames without fsync, so a crash can leave an empty file behind.
 * `parse` validates what is read (zod), so a damaged file is reported, never trusted.
 * `serialize` redacts every string by default (session.json): no key reaches the file.
 */
export class DurableJsonFileSync<T> implements SyncAdapter<T> {
  constructor(
    private readonly path: string,
    private readonly parse: (raw: unknown) => T,
    /** The session the file belongs to, if any: named in its temp files (see tempPathFor). */
    private readonly owner?: string,
    private readonly serialize: (data: T) => string = (data) => secrets.stringify(data),
  ) {}

  read(): T | null {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return this.parse(JSON.parse(text));
  }

  /** The stamp of the file the last write() left. */
  lastWrite: FileStamp | null = null;

  write(data: T): void {
    this.lastWrite = writeFileDurable(this.path, this.serialize(data), 0o600, this.owner);
  }
}
