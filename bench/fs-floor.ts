import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileDurable } from '../source/store/durable-file.js';
import { median } from './median.js';

/**
 * What one durable step costs the file system right now, with no acode logic: one crash-atomic
 * 600-byte replace plus two fdatasync'd 2 KiB appends. The disk's speed drifts a lot on these
 * machines, so the per-step overhead is best read against this floor, measured in the same run.
 */
export function fsFloorMs(rounds = 300): number {
  const dir = mkdtempSync(join(tmpdir(), 'acode-bench-fs-'));
  try {
    const log = openSync(join(dir, 'events.jsonl'), 'a');
    const line = Buffer.alloc(2200, 'x');
    const checkpoint = 'c'.repeat(600);
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const start = performance.now();
      writeSync(log, line);
      fdatasyncSync(log);
      writeSync(log, line);
      fdatasyncSync(log);
      writeFileDurable(join(dir, 'session.json'), checkpoint);
      times.push(performance.now() - start);
    }
    closeSync(log);
    return median(times);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
