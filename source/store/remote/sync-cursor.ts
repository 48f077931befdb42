import { readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { tempPathFor, writeFileDurable } from '../durable-file.js';

/** The file in a session's folder saying how far its events have reached the team store. */
export const cursorFileName = 'sync-cursor.json';

/**
 * How far a session's fenced event stream has been pushed to one team store: every kept event with
 * an id up to `event_id` is there. `log_bytes`: the size of events.jsonl when everything in it was
 * known pushed — a log still that size has nothing pending, found with one stat.
 */
export interface SyncCursor {
  /** The store it counts for (URL without credentials): another store starts from nothing. */
  remote: string;
  event_id: number;
  /** Where in events.jsonl the outbox reads on from: every whole line before it is in the store (or fenced out). */
  log_bytes: number;
  /** The highest lock epoch of the events before log_bytes: the fence of what follows starts there. Absent in cursors before it: the log is read whole. */
  epoch?: number;
  /**
   * The session's record and spec snapshots went with its row (what another machine needs to pull
   * it); absent in cursors of schema 2, whose sessions are pushed once more for them.
   */
  with_record?: true;
}

/** The session's cursor for `remote`; none yet (or for another store, or unreadable): from the start. */
export function readCursor(dir: string, remote: string): SyncCursor {
  try {
    const cursor = JSON.parse(readFileSync(join(dir, cursorFileName), 'utf8')) as Partial<SyncCursor>;
    if (cursor.remote === remote && Number.isSafeInteger(cursor.event_id) && Number.isSafeInteger(cursor.log_bytes)) {
      // An epoch that is not a whole number: the log is read whole, once, as before epochs were kept.
      if (cursor.epoch !== undefined && !Number.isSafeInteger(cursor.epoch)) delete cursor.epoch;
      return cursor as SyncCursor;
    }
  } catch {
    // Missing or damaged: pushing again from the start costs time, never a duplicate (inserts are idempotent).
  }
  return { remote, event_id: 0, log_bytes: -1 };
}

/** Replaces the cursor atomically and durably (temp → fsync → rename): a crash leaves the old one or the new. */
export function writeCursor(dir: string, sessionId: string, cursor: SyncCursor): void {
  writeFileDurable(join(dir, cursorFileName), `${JSON.stringify(cursor)}\n`, 0o600, sessionId);
}

/**
 * writeCursor with its flushes off the event loop (libuv's thread pool): a run's background push
 * moves the cursor after each batch, and a disk slow to flush then holds up no step. The same
 * replacement (temp → fdatasync → rename → fsync of the folder): a crash leaves the old or the new.
 */
export async function writeCursorAsync(dir: string, sessionId: string, cursor: SyncCursor): Promise<void> {
  const path = join(dir, cursorFileName);
  const temp = tempPathFor(path, sessionId);
  const file = await open(temp, 'w', 0o600);
  try {
    await file.writeFile(`${JSON.stringify(cursor)}\n`);
    await file.datasync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
