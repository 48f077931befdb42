import { closeSync, fdatasync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeFileDurable } from '../source/store/durable-file.js';
import { median } from './median.js';

/** A step's events as the log holds them: step_completed with a 2 KiB response, then the next step_started. */
const stepLine = Buffer.alloc(2200, 'x');

const syncOffLoop = promisify(fdatasync);

export interface SyncFloor {
  /** One append of a step's events and one fdatasync, inline: what a durable step cannot go below. */
  inlineMs: number;
  /** The same with the fdatasync on libuv's thread pool, as the journal's flush runs it (the event loop goes on meanwhile). */
  threadPoolMs: number;
}

/**
 * The disk's floor for a durable step right now, with no acode logic, both ways (taking turns, so
 * both see the same disk): the mean over `rounds`, as a run's wall time per step is a mean — a busy
 * disk's rare slow fdatasync (tens of ms while other jobs flush) weighs on both alike. The disk's
 * speed drifts a lot on these machines, so a step's overhead is read against this floor, sampled
 * right beside each run.
 */
export async function syncFloor(rounds = 300): Promise<SyncFloor> {
  const dir = mkdtempSync(join(tmpdir(), 'acode-bench-fs-'));
  try {
    const log = openSync(join(dir, 'events.jsonl'), 'a');
    let inline = 0;
    let threadPool = 0;
    for (let i = 0; i < rounds; i++) {
      let start = performance.now();
      writeSync(log, stepLine);
      fdatasyncSync(log);
      inline += performance.now() - start;
      start = performance.now();
      writeSync(log, stepLine);
      await syncOffLoop(log);
      threadPool += performance.now() - start;
    }
    closeSync(log);
    return { inlineMs: inline / rounds, threadPoolMs: threadPool / rounds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What a step cost the file system before steps shared one fdatasync: one crash-atomic 600-byte
 * replace (the checkpoint) plus two fdatasync'd appends (step_started, step_completed).
 */
export function threeSyncFloorMs(rounds = 300): number {
  const dir = mkdtempSync(join(tmpdir(), 'acode-bench-fs-'));
  try {
    const log = openSync(join(dir, 'events.jsonl'), 'a');
    const checkpoint = 'c'.repeat(600);
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const start = performance.now();
      writeSync(log, stepLine);
      fdatasyncSync(log);
      writeSync(log, stepLine);
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
