import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { BlobStore } from '../engine/blob-store.js';
import type { FileChange } from '../engine/environment-check.js';
import type { PendingWriteState } from '../engine/write-recovery.js';

// Loaded only when a person opens a diff: resume itself never pays for the diff library.
/** Unified diff of what the session last saw against the file now. */
export function diffLines(change: FileChange, blobs: BlobStore, cwd: string): string[] {
  const shown = relative(cwd, change.path) || change.path;
  const before = change.seenText ?? (change.seen.blob ? blobs.get(change.seen.blob).toString('utf8') : '');
  const after = existsSync(change.path) ? readFileSync(change.path, 'utf8') : '';
  const patch = createTwoFilesPatch(`${shown} (session)`, `${shown} (now)`, before, after, undefined, undefined, { context: 3 });
  return patch.split('\n').slice(1).filter((line, i, all) => i < all.length - 1 || line !== '');
}

/** Unified diff of a torn write: the file's snapshot from before the write against what the write left. */
export function tornDiffLines(write: PendingWriteState, blobs: BlobStore, cwd: string): string[] {
  const shown = relative(cwd, write.path) || write.path;
  const before = write.before_blob ? blobs.get(write.before_blob).toString('utf8') : '';
  const now = existsSync(write.path) ? readFileSync(write.path, 'utf8') : '';
  const patch = createTwoFilesPatch(`${shown} (snapshot)`, `${shown} (torn)`, before, now, undefined, undefined, { context: 3 });
  return patch.split('\n').slice(1).filter((line, i, all) => i < all.length - 1 || line !== '');
}
