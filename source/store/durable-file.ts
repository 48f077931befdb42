import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

let counter = 0;

/** fsyncs a directory so that a rename inside it survives a power cut. */
export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Crash-atomic file replacement: write a temp file beside the target → fsync → rename → fsync the
 * directory. A crash at any instant leaves the old file or the new one, never a torn one.
 * Synchronous on purpose: it is ~0.3 ms here, cheaper than a thread-pool round trip per call.
 */
export function writeFileDurable(path: string, data: string | Uint8Array, mode = 0o600): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${++counter}.tmp`);
  const fd = openSync(temp, 'w', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  fsyncDirectory(dir);
}
