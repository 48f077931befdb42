import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { tempFileName } from '../store/durable-file.js';
import { sha256, type BlobStore } from './blob-store.js';
import type { EngineEventBody, PendingWrite, WriteRecovery } from './events.js';
import type { SessionProgress } from './session-progress.js';
import { readFileBeneath, removeFileBeneath, writeFileBeneath, type Confinement } from './tools/beneath.js';
import { ToolInputError } from './tools/confined-path.js';

/** What a write that was under way when the session stopped looks like on disk now. */
export interface PendingWriteState extends PendingWrite {
  call_id: string;
  /**
   * applied: the new content is there · untouched: the old content is · torn: a prefix of the new
   * content (a writer died mid-write) · changed: something else, most likely a person's edit.
   */
  state: 'applied' | 'untouched' | 'torn' | 'changed';
  current_hash: string | null;
}

export type InProgressStrategy = 'rollback' | 'retry' | 'prompt';

/**
 * The file's content, read through checked folders as the tools read (null: no such file).
 * `outside`: the name now leads out of the roots (a folder swapped for a link): not ours to judge.
 */
function contentNow(path: string, where: Confinement): Buffer | null | 'outside' {
  try {
    return readFileBeneath(path, where);
  } catch (error) {
    if (error instanceof ToolInputError) return 'outside';
    throw error;
  }
}

/**
 * A snapshot of what the file holds now (kept writes, accepted changes are journaled with it),
 * read through checked folders; none when it is gone or its name now leads outside the roots.
 */
export function snapshotNow(path: string, where: Confinement, blobs: BlobStore): string | null {
  const current = contentNow(path, where);
  return current === null || current === 'outside' ? null : blobs.put(current);
}

/** A file that holds the start of the intended content was torn by a writer that died mid-write. */
function isPrefixOfIntended(current: Buffer, write: PendingWrite, blobs: BlobStore): boolean {
  const intended = blobs.get(write.after_blob);
  return current.length < intended.length && intended.subarray(0, current.length).equals(current);
}

/**
 * Classifies every journaled-but-unconfirmed write by comparing the file with its recorded hashes.
 * A name that leads outside the roots now is `changed`: never rolled back, shown to the person.
 */
export function inspectPendingWrites(progress: SessionProgress, blobs: BlobStore, where: Confinement): PendingWriteState[] {
  return Object.entries(progress.pending_writes).map(([call_id, write]) => {
    const current = contentNow(write.path, where);
    if (current === 'outside') return { call_id, ...write, state: 'changed', current_hash: null };
    const hash = current === null ? null : sha256(current);
    const state = hash === write.after_hash ? 'applied' : hash === write.before_hash ? 'untouched' : current !== null && isPrefixOfIntended(current, write, blobs) ? 'torn' : 'changed';
    return { call_id, ...write, state, current_hash: hash };
  });
}

/** What resume will do with each pending write, in words (plan and dry-run). */
export function describeRecovery(write: PendingWriteState, strategy: Exclude<InProgressStrategy, 'prompt'>): string {
  if (write.state === 'applied') return 'already applied: marked done, not written again';
  if (write.state === 'untouched') return 'never applied: the retry writes it';
  if (write.state === 'changed') return 'changed by someone else since: kept as it is (listed with the changed files)';
  return strategy === 'rollback' ? 'torn: rolled back from its snapshot, then retried' : 'torn: left as is for the retry to overwrite';
}

/**
 * Settles pending writes before the in-progress step is retried: applied ones are marked done,
 * torn ones rolled back from the snapshot (or kept, with the retry strategy). Returns the events
 * to journal; the caller holds the session lock.
 */
export function settlePendingWrites(writes: readonly PendingWriteState[], strategy: Exclude<InProgressStrategy, 'prompt'>, blobs: BlobStore, where: Confinement, sessionId?: string): EngineEventBody[] {
  return writes.map((write) => {
    let outcome: WriteRecovery;
    let hash = write.current_hash;
    let blob: string | null = null;
    if (write.state === 'applied') {
      outcome = 'applied';
      blob = write.after_blob;
    } else if (write.state === 'untouched') {
      outcome = 'not_applied';
      blob = write.before_blob;
    } else if (write.state === 'changed') {
      // Not a torn write: someone edited the file. Never roll that back; the changed-file prompt asked.
      outcome = 'kept';
      blob = snapshotNow(write.path, where, blobs);
    } else if (strategy === 'rollback') {
      // Through checked folders, like the write it undoes: a swapped link cannot lead it outside.
      if (write.before_blob) writeFileBeneath(write.path, blobs.get(write.before_blob), where, (name) => tempFileName(name, sessionId));
      else removeFileBeneath(write.path, where);
      outcome = 'rolled_back';
      hash = write.before_hash;
      blob = write.before_blob;
    } else {
      outcome = 'kept';
      blob = snapshotNow(write.path, where, blobs);
    }
    return { type: 'file_write_recovered', step: write.step, call_id: write.call_id, path: write.path, outcome, hash, blob };
  });
}

/**
 * The folders a session's writes went to, or were going to: where a writer killed mid-write left
 * its temp file (beside the target, or beside the file a symlink target points to).
 */
export function writeFolders(progress: SessionProgress, cwd: string): Set<string> {
  const folders = new Set([cwd]);
  for (const path of [...Object.keys(progress.files), ...Object.values(progress.pending_writes).map((w) => w.path)]) {
    folders.add(dirname(path));
    try {
      folders.add(dirname(realpathSync(path)));
    } catch {
      // Gone (or never created): its own folder is the one the writer used.
    }
  }
  return folders;
}
