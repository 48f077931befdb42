import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFolders } from '../../source/engine/make-folders.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('makeFolders (mkdir -p)', () => {
  it('makes every missing folder, with the mode asked for, and leaves an existing one as it is', () => {
    const root = tempDir();
    makeFolders(join(root, 'a', 'b', 'c'), 0o700);
    expect(statSync(join(root, 'a', 'b', 'c')).isDirectory()).toBe(true);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    makeFolders(join(root, 'a', 'b'));
    mkdirSync(join(root, 'd'));
    makeFolders(join(root, 'd'));
    expect(existsSync(join(root, 'd'))).toBe(true);
  });

  it('refuses a path through a file (ENOTDIR), making nothing', () => {
    const root = tempDir();
    writeFileSync(join(root, 'file'), 'x');
    expect(() => makeFolders(join(root, 'file', 'sub', 'deeper'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  it('fails at once where the file system makes no folders (/proc): Node 20 recursive mkdir loops there for ever', () => {
    expect(() => makeFolders('/proc/acode-no-such-folder/sub')).toThrow(expect.objectContaining({ code: 'EPERM', message: expect.stringContaining('makes no folders in /proc') }));
  });
});
