import { sha256 } from './blob-store.js';
import { regularFileNow } from './file-now.js';
import { artifactsStep } from './step-id.js';
import type { FileSeen, SessionProgress } from './session-progress.js';

/** A file the session read or wrote that is not as the session last saw it. */
export interface FileChange {
  path: string;
  kind: 'modified' | 'deleted' | 'created';
  /** Bytes now (0 when deleted). */
  size: number;
  /** When it changed, as far as the file system says (ms since epoch; null when deleted). */
  mtime_ms: number | null;
  seen: FileSeen;
  /** Hash and size of the content now, for an "accept" event. */
  hash: string | null;
  /** Why this file matters, when it is not an ordinary read or write (the spec file). */
  note?: string;
  /** What the session saw, when it is not a blob (the spec snapshot). */
  seenText?: string;
}

export interface EnvironmentReport {
  changes: FileChange[];
  /** Files compared. */
  checked: number;
  /** True when the check ran out of time before comparing every file. */
  timed_out: boolean;
}

/**
 * Compares every file the session touched with what it last saw (sha256), skipping files whose
 * write is still pending (write recovery settles those). Reads only.
 */
export function checkFiles(progress: SessionProgress, timeoutMs: number, now: () => number = Date.now): EnvironmentReport {
  const pending = new Set(Object.values(progress.pending_writes).map((w) => w.path));
  const deadline = now() + timeoutMs;
  const changes: FileChange[] = [];
  let checked = 0;
  for (const [path, seen] of Object.entries(progress.files)) {
    if (pending.has(path)) continue;
    if (now() > deadline) return { changes, checked, timed_out: true };
    checked++;
    const change = changeNow(path, seen);
    if (change) changes.push(change);
  }
  return { changes, checked, timed_out: false };
}

/** The file at `path` against what the session saw of it (null hash: no file): how it changed, or undefined when it did not. */
export function changeNow(path: string, seen: FileSeen): FileChange | undefined {
  const file = regularFileNow(path);
  if (!file) return seen.hash === null ? undefined : { path, kind: 'deleted', size: 0, mtime_ms: null, seen, hash: null };
  const hash = sha256(file.content);
  if (hash === seen.hash) return undefined;
  return { path, kind: seen.hash === null ? 'created' : 'modified', size: file.content.length, mtime_ms: file.mtimeMs, seen, hash };
}

/** The spec file on disk against the snapshot the session runs (a change is reported, never used). */
export function checkSpecFile(specPath: string, snapshotHash: string, snapshotText: string): FileChange | undefined {
  // A moved spec does not matter: the session runs its snapshot (a folder in its place neither).
  const file = regularFileNow(specPath);
  if (!file) return undefined;
  const { content } = file;
  const hash = sha256(content);
  if (hash === snapshotHash) return undefined;
  return {
    path: specPath,
    kind: 'modified',
    size: content.length,
    mtime_ms: file.mtimeMs,
    seen: { hash: snapshotHash, blob: null, op: 'read', step: artifactsStep, at: '' },
    hash,
    note: 'the workflow spec; the session keeps running its snapshot',
    seenText: snapshotText,
  };
}
