import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../source/engine/blob-store.js';
import { checkFiles } from '../source/engine/environment-check.js';
import { initialProgress } from '../source/engine/session-progress.js';
import { median } from './median.js';

export interface EnvironmentFigures {
  files: number;
  totalBytes: number;
  checkMs: number;
}

/** Environment validation of a session that touched `files` files of ~1 MB in all, two of them changed since. */
export function environmentCheck(files = 1000, totalBytes = 1024 * 1024, runs = 11): EnvironmentFigures {
  const root = mkdtempSync(join(tmpdir(), 'acode-bench-env-'));
  try {
    const progress = initialProgress(1);
    const size = Math.floor(totalBytes / files);
    for (let i = 0; i < files; i++) {
      const dir = join(root, `d${i % 20}`);
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `f${i}.txt`);
      const content = `${i}`.padEnd(size, 'x');
      writeFileSync(path, content);
      progress.files[path] = { hash: sha256(content), blob: null, op: i % 2 ? 'read' : 'write', step: String(i), at: '' };
    }
    writeFileSync(join(root, 'd0', 'f0.txt'), 'changed');
    writeFileSync(join(root, 'd1', 'f1.txt'), 'changed');
    const times: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const start = performance.now();
      const report = checkFiles(progress, 30_000);
      if (report.changes.length !== 2) throw new Error(`expected 2 changes, found ${report.changes.length}`);
      if (i > 0) times.push(performance.now() - start);
    }
    return { files, totalBytes, checkMs: median(times) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
