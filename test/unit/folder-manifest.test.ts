import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderManifest } from '../../source/agent-cli/folder-manifest.js';
import { snapshotChanges } from '../../source/engine/agent-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('the folder snapshot of an agent CLI step', () => {
  it('passes a FIFO, a symlink loop and a 1 GB file without opening, following or reading them', () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.ts'), 'a');
    execFileSync('mkfifo', [join(root, 'pipe')]);
    execFileSync('truncate', ['-s', '1G', join(root, 'big.bin')]);
    symlinkSync('.', join(root, 'loop'));
    symlinkSync(join(root, 'y'), join(root, 'x'));
    symlinkSync(join(root, 'x'), join(root, 'y'));
    const started = performance.now();
    const manifest = folderManifest(root);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(Object.keys(manifest).sort()).toEqual([join(root, 'a.ts'), join(root, 'big.bin')]);
    expect(manifest[join(root, 'big.bin')]).toMatch(/^size:1073741824:mtime:/);
  });

  it('hashes no more than its byte budget in all: past it, files are known by size and mtime', () => {
    const root = tempDir();
    for (const name of ['1', '2', '3']) writeFileSync(join(root, name), 'z'.repeat(1000));
    const manifest = folderManifest(root, [], { files: 100, bytes: 1500, entries: 100 });
    expect(manifest[join(root, '1')]).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest[join(root, '2')]).toMatch(/^size:1000:mtime:/);
    expect(manifest[join(root, '3')]).toMatch(/^size:1000:mtime:/);
  });

  it('stops walking after its budget of entries: a tree of empty folders does not walk for ever', () => {
    const root = tempDir();
    for (let i = 0; i < 50; i++) mkdirSync(join(root, `d${String(i).padStart(2, '0')}`, 'e', 'f'), { recursive: true });
    writeFileSync(join(root, 'd49', 'late.ts'), 'x');
    expect(Object.keys(folderManifest(root, [], { files: 100, bytes: 1e9, entries: 60 }))).toEqual([]);
    expect(Object.keys(folderManifest(root))).toEqual([join(root, 'd49', 'late.ts')]);
  });
});

describe('two snapshots of one folder', () => {
  it('take each file the same way: a file the budget left unread is not reported changed because another file shrank', () => {
    const root = tempDir();
    writeFileSync(join(root, '1'), 'z'.repeat(1000));
    writeFileSync(join(root, '2'), 'z'.repeat(1000));
    const most = { files: 100, bytes: 1500, entries: 100 };
    const before = folderManifest(root, [], most);
    writeFileSync(join(root, '1'), 'z');
    const after = folderManifest(root, [], most, before);
    expect(snapshotChanges(before, after).map((change) => change.path)).toEqual([join(root, '1')]);
  });
});
