import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffLines } from '../../source/commands/file-diff.js';
import { MemoryBlobStore } from '../../source/engine/blob-store.js';
import type { FileChange } from '../../source/engine/environment-check.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A change to `path` whose seen content is `before` (a blob). */
function changeOf(path: string, blobs: MemoryBlobStore, before: Uint8Array): FileChange {
  return { path, size: 0, mtime_ms: null, hash: null, seen: { blob: blobs.put(before) } } as unknown as FileChange;
}

describe('the changed-file diff as shown', () => {
  // FIXED: source/commands/file-diff.ts: a file an agent wrote was shown byte for byte — its escape sequences retitled the
  // terminal when viewed, and a binary file's bytes shredded the screen.
  it("takes a text file's terminal controls out, keeping its words", () => {
    const cwd = tempDir();
    const blobs = new MemoryBlobStore();
    const path = join(cwd, 'notes.md');
    writeFileSync(path, 'line one\n\u001b]0;TITLE-FROM-FILE\u0007changed \u001b[2Jline\ttab\r\n');
    const lines = diffLines(changeOf(path, blobs, Buffer.from('line one\nold line\n')), blobs, cwd);
    expect(lines.join('\n')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(lines).toContain('+changed line\ttab');
    expect(lines).toContain('-old line');
  });

  it('says a binary file differs instead of showing its bytes', () => {
    const cwd = tempDir();
    const blobs = new MemoryBlobStore();
    const path = join(cwd, 'image.png');
    writeFileSync(path, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0e, 0x0f, 0x0b, 0x0d, 0x1b, 0x5b, 0x32, 0x4a]));
    const lines = diffLines(changeOf(path, blobs, Buffer.from('text before\n')), blobs, cwd);
    expect(lines).toEqual(['--- image.png (session)', '+++ image.png (now)', 'binary file: 12 bytes then, 13 bytes now; its bytes are not shown']);
  });

  // FIXED: source/commands/file-diff.ts: [V]iew read what was there as a file — a folder was a stack trace (EISDIR), a named pipe hung the prompt.
  it('shows a file replaced by a folder, a named pipe, a symbolic link loop or a path through a file as emptied', () => {
    const cwd = tempDir();
    const blobs = new MemoryBlobStore();
    mkdirSync(join(cwd, 'folder'));
    execFileSync('mkfifo', [join(cwd, 'pipe')]);
    symlinkSync(join(cwd, 'loop'), join(cwd, 'loop'));
    writeFileSync(join(cwd, 'file'), 'x');
    for (const name of ['folder', 'pipe', 'loop', 'file/inside']) {
      const lines = diffLines(changeOf(join(cwd, name), blobs, Buffer.from('was here\n')), blobs, cwd);
      expect(lines, name).toContain('-was here');
      expect(lines.filter((line) => line.startsWith('+') && !line.startsWith('+++')), name).toEqual([]);
    }
  });
});
