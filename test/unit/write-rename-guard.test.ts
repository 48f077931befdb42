import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEventBody } from '../../source/engine/events.js';
import { JournalSealedError } from '../../source/engine/journal.js';
import { writeWithIntent } from '../../source/engine/tools/write-ahead.js';
import { FileBlobStore } from '../../source/store/file-blob-store.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('a file write whose process lost the session lock after journaling its intent', () => {
  it('replaces nothing: the lock is asked again right before the rename', () => {
    const cwd = tempDir();
    const target = join(cwd, 'notes.txt');
    writeFileSync(target, 'the person’s own text');
    const emitted: EngineEventBody[] = [];
    // The intent was journaled under the lock (the journal asked it); the lock is another's by the time the temp file is whole.
    let asked = 0;
    const stillOwned = () => {
      asked += 1;
      return false;
    };
    const write = () =>
      writeWithIntent(target, Buffer.from('a frozen holder’s late write'), 'call_1', {
        step: '0',
        attempt: 1,
        cwd,
        extraRoots: [],
        blobs: new FileBlobStore(join(tempDir(), 'blobs')),
        emit: (body) => emitted.push(body),
        sessionId: 'abcdef0123456789',
        stillOwned,
      });
    expect(write).toThrow(JournalSealedError);
    expect(asked).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe('the person’s own text');
    expect(readdirSync(cwd)).toEqual(['notes.txt']);
    expect(emitted.map((e) => e.type)).toEqual(['file_write_intended']);
  });
});
