import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../source/engine/blob-store.js';
import { DamagedBlobError, FileBlobStore } from '../../source/store/file-blob-store.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('FileBlobStore', () => {
  it('tells an intact snapshot from a missing or damaged one, and never hands out damaged bytes', () => {
    const blobs = new FileBlobStore(tempDir());
    const hash = blobs.put(Buffer.from('what the file held'));
    expect(hash).toBe(sha256('what the file held'));
    expect(blobs.state(hash)).toBe('intact');
    expect(blobs.get(hash).toString()).toBe('what the file held');
    expect(blobs.state(sha256('never stored'))).toBe('missing');
    writeFileSync(blobs.pathOf(hash), 'what the file held, edited');
    expect(blobs.state(hash)).toBe('damaged');
    expect(() => blobs.get(hash)).toThrowError(DamagedBlobError);
    expect(() => blobs.get(hash)).toThrowError(/is damaged: its content no longer matches the sha256 it is named by/);
  });
});
