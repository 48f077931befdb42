import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '../source/engine/events.js';
import { EventLogWriter, realFileSync, type FileSync } from '../source/store/event-log.js';

export interface GroupCommitRow {
  appenders: number;
  appends: number;
  syncs: number;
  /** Wall time over every append, each awaited to durability. */
  perAppendMs: number;
}

/**
 * Group commit on the real log writer: `appenders` concurrent branches, each appending a step's
 * event (2 KiB) and awaiting its flush, `rounds` times; the fdatasyncs they needed, counted.
 */
async function groupCommitOnce(appenders: number, rounds: number, dir: string): Promise<GroupCommitRow> {
  let syncs = 0;
  const counting: FileSync = {
    datasync: (fd) => realFileSync.datasync(fd),
    datasyncAsync: (fd) => {
      syncs++;
      return realFileSync.datasyncAsync!(fd);
    },
  };
  const writer = new EventLogWriter(join(dir, `events-${appenders}.jsonl`), counting);
  const response = 'r'.repeat(2048);
  let id = 0;
  const branch = async (b: number) => {
    for (let round = 0; round < rounds; round++) {
      const event: EngineEvent = { type: 'step_completed', step: String(b), agent: 'worker', attempt: 1, idempotency_key: `bench:${b}:${round}`, response, usage: { input: 1, output: 1 }, duration_ms: 0, event_id: ++id, ts: new Date().toISOString(), epoch: 1 };
      writer.append(event);
      await writer.flush();
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: appenders }, (_, b) => branch(b)));
  const ms = performance.now() - start;
  writer.close();
  return { appenders, appends: appenders * rounds, syncs, perAppendMs: ms / (appenders * rounds) };
}

export async function groupCommit(): Promise<GroupCommitRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'acode-bench-gc-'));
  try {
    await groupCommitOnce(4, 50, dir); // warm up
    const rows: GroupCommitRow[] = [];
    for (const appenders of [1, 2, 4, 8, 16, 32]) rows.push(await groupCommitOnce(appenders, Math.max(25, 400 / appenders), dir));
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
