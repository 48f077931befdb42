import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../source/engine/blob-store.js';
import { initialProgress } from '../../source/engine/session-progress.js';
import { inspectPendingWrites, settlePendingWrites } from '../../source/engine/write-recovery.js';
import { confinement } from '../../source/engine/tools/beneath.js';
import { FileBlobStore } from '../../source/store/file-blob-store.js';
import { tempDir } from '../helpers/temp-dir.js';

const before = Buffer.from('old notes, as the person left them\n');
const intended = Buffer.from('# Notes\n\nline one\nline two\nline three\n');

/**
 * A write journaled as the session's snapshot store and event log would have it, with the file on
 * disk left as a writer killed after `tornBytes` bytes leaves it. No retry runs here, so what the
 * file holds after settling is what the rollback did, and nothing else.
 */
function tornWrite(options: { existedBefore: boolean; tornBytes: number; folder?: string }) {
  const cwd = tempDir();
  if (options.folder) mkdirSync(join(cwd, options.folder));
  const blobDir = join(tempDir(), 'blobs');
  mkdirSync(blobDir);
  const blobs = new FileBlobStore(blobDir);
  const path = join(cwd, options.folder ?? '', 'notes.md');
  const progress = initialProgress(2);
  progress.pending_writes.call_0_0 = {
    step: '0',
    attempt: 1,
    path,
    before_hash: options.existedBefore ? sha256(before) : null,
    before_blob: options.existedBefore ? blobs.put(before) : null,
    after_hash: sha256(intended),
    after_blob: blobs.put(intended),
    bytes: intended.length,
  };
  writeFileSync(path, intended.subarray(0, options.tornBytes));
  const inspect = () => inspectPendingWrites(progress, blobs, confinement(cwd, []));
  return { cwd, path, blobs, inspect, where: confinement(cwd, []), writes: inspectPendingWrites(progress, blobs, confinement(cwd, [])) };
}

describe('settling a write torn by a crash, before any retry', () => {
  it('restores the file from its snapshot with the rollback strategy, byte for byte', () => {
    const { path, blobs, where, writes } = tornWrite({ existedBefore: true, tornBytes: 9 });
    expect(writes.map((w) => w.state)).toEqual(['torn']);
    const events = settlePendingWrites(writes, 'rollback', blobs, where);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(events).toEqual([{ type: 'file_write_recovered', step: '0', call_id: 'call_0_0', path, outcome: 'rolled_back', hash: sha256(before), blob: sha256(before) }]);
  });

  it('removes a torn file that did not exist before the write', () => {
    const { path, blobs, where, writes } = tornWrite({ existedBefore: false, tornBytes: 4 });
    expect(writes.map((w) => w.state)).toEqual(['torn']);
    const events = settlePendingWrites(writes, 'rollback', blobs, where);
    expect(existsSync(path)).toBe(false);
    expect(events).toMatchObject([{ outcome: 'rolled_back', hash: null, blob: null }]);
  });

  it('leaves the torn bytes in place with the retry strategy, and says so', () => {
    const { path, blobs, where, writes } = tornWrite({ existedBefore: true, tornBytes: 9 });
    const events = settlePendingWrites(writes, 'retry', blobs, where);
    expect(readFileSync(path).equals(intended.subarray(0, 9))).toBe(true);
    expect(events).toMatchObject([{ outcome: 'kept', hash: sha256(intended.subarray(0, 9)) }]);
  });

  it('never rolls back through a folder swapped for a link to outside the working directory', () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'notes.md'), intended.subarray(0, 9)); // looks torn from inside, too
    const { cwd, blobs, where, writes, inspect } = tornWrite({ existedBefore: true, tornBytes: 9, folder: 'sub' });
    expect(writes.map((w) => w.state)).toEqual(['torn']);
    renameSync(join(cwd, 'sub'), join(cwd, 'sub-real'));
    symlinkSync(outside, join(cwd, 'sub'));
    // Swapped after the inspection: the rollback's checked open refuses to follow the link out.
    expect(() => settlePendingWrites(writes, 'rollback', blobs, where)).toThrow(/outside the working directory/);
    // Swapped before it: the write is judged changed by someone else, and kept.
    const seen = inspect();
    expect(seen.map((w) => w.state)).toEqual(['changed']);
    expect(settlePendingWrites(seen, 'rollback', blobs, where)).toMatchObject([{ outcome: 'kept', blob: null }]);
    expect(readFileSync(join(outside, 'notes.md')).equals(intended.subarray(0, 9))).toBe(true);
    expect(readdirSync(outside)).toEqual(['notes.md']);
    expect(readFileSync(join(cwd, 'sub-real', 'notes.md')).equals(intended.subarray(0, 9))).toBe(true);
  });
});
