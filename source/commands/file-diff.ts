import { relative } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { BlobStore } from '../engine/blob-store.js';
import type { FileChange } from '../engine/environment-check.js';
import { regularFileNow } from '../engine/file-now.js';
import type { PendingWriteState } from '../engine/write-recovery.js';
import { terminalText } from '../printable-text.js';

/** Whether bytes are a binary file's, as git tells: a NUL among the first 8,000. */
function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/**
 * A unified diff as the lines a person reads: a binary file is said to differ (its bytes would
 * shred the screen), and a text file's lines carry no terminal controls — a file an agent wrote
 * could otherwise retitle the terminal or clear it when viewed.
 */
function shownDiff(shown: string, labels: [string, string], before: Buffer, after: Buffer): string[] {
  if (isBinary(before) || isBinary(after)) return [`--- ${shown} (${labels[0]})`, `+++ ${shown} (${labels[1]})`, `binary file: ${before.length} bytes then, ${after.length} bytes now; its bytes are not shown`];
  const patch = createTwoFilesPatch(`${shown} (${labels[0]})`, `${shown} (${labels[1]})`, before.toString('utf8'), after.toString('utf8'), undefined, undefined, { context: 3 });
  return patch.split('\n').slice(1).filter((line, i, all) => i < all.length - 1 || line !== '').map(terminalText);
}

// Loaded only when a person opens a diff: resume itself never pays for the diff library.
/** Unified diff of what the session last saw against the file now. */
export function diffLines(change: FileChange, blobs: BlobStore, cwd: string): string[] {
  const shown = relative(cwd, change.path) || change.path;
  const before = change.seenText !== undefined ? Buffer.from(change.seenText) : change.seen.blob ? blobs.get(change.seen.blob) : Buffer.alloc(0);
  const after = regularFileNow(change.path)?.content ?? Buffer.alloc(0);
  return shownDiff(shown, ['session', 'now'], before, after);
}

/** Unified diff of a torn write: the file's snapshot from before the write against what the write left. */
export function tornDiffLines(write: PendingWriteState, blobs: BlobStore, cwd: string): string[] {
  const shown = relative(cwd, write.path) || write.path;
  const before = write.before_blob ? blobs.get(write.before_blob) : Buffer.alloc(0);
  const now = regularFileNow(write.path)?.content ?? Buffer.alloc(0);
  return shownDiff(shown, ['snapshot', 'torn'], before, now);
}
