import { fdatasync, fdatasyncSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import type { EngineEvent } from '../../source/engine/events.js';
import { EventLogWriter, readEventLog, type FileSync } from '../../source/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';

const event = (id: number): EngineEvent => ({ type: 'step_skipped', step: String(id), agent: 'worker', event_id: id, ts: '2026-01-01T00:00:00.000Z', epoch: 1 });

const realSync = promisify(fdatasync);

/** The real fdatasync, counted: each notes how many lines of the log it covers (taken before it starts) once it is done. */
function countingSync(path: string, hold?: () => Promise<void>) {
  const lines = () => readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
  const done: number[] = [];
  let started = 0;
  const fileSync: FileSync = {
    datasync(fd) {
      const covers = lines();
      fdatasyncSync(fd);
      done.push(covers);
    },
    async datasyncAsync(fd) {
      const covers = lines();
      started++;
      await hold?.();
      await realSync(fd);
      done.push(covers);
    },
  };
  /** Lines every completed sync together made durable. */
  const durable = () => Math.max(0, ...done);
  return { fileSync, done, durable, started: () => started };
}

describe('group commit', () => {
  it('resolves a flush only once a sync that began after its append is done, and lets flushes arriving meanwhile share the next one', async () => {
    const path = join(tempDir(), 'events.jsonl');
    const gates: (() => void)[] = [];
    const order: string[] = [];
    const sync = countingSync(path, () => new Promise<void>((resolve) => gates.push(resolve)));
    const writer = new EventLogWriter(path, sync.fileSync);
    const flushed = (n: number) => () => order.push(`flush ${n} resolved after ${sync.done.length} syncs, ${sync.durable()} lines durable`);

    writer.append(event(1));
    const first = writer.flush().then(flushed(1));
    expect(sync.started()).toBe(1); // in flight, held
    // Two branches append and flush while it runs: the sync in flight may not cover them.
    writer.append(event(2));
    const second = writer.flush().then(flushed(2));
    writer.append(event(3));
    const third = writer.flush().then(flushed(3));
    expect(sync.started()).toBe(1); // one at a time
    gates[0]!();
    await first;
    expect(order).toEqual(['flush 1 resolved after 1 syncs, 1 lines durable']);
    // The next sync started for both waiting branches at once, covering both their lines.
    await vi.waitFor(() => expect(gates).toHaveLength(2));
    expect(sync.started()).toBe(2);
    gates[1]!();
    await Promise.all([second, third]);
    expect(order.slice(1)).toEqual(['flush 2 resolved after 2 syncs, 3 lines durable', 'flush 3 resolved after 2 syncs, 3 lines durable']);
    expect(sync.done).toEqual([1, 3]);
    writer.close();
  });

  it('never resolves a flush of 40 concurrent appenders before its own line is durable, with far fewer syncs than appends', async () => {
    const path = join(tempDir(), 'events.jsonl');
    const sync = countingSync(path);
    const writer = new EventLogWriter(path, sync.fileSync);
    let lines = 0;
    const early: string[] = [];
    const branch = async (b: number) => {
      for (let round = 0; round < 8; round++) {
        writer.append(event(++lines));
        const mine = lines;
        await writer.flush();
        if (sync.durable() < mine) early.push(`branch ${b} round ${round}: line ${mine}, durable ${sync.durable()}`);
        // Branches drift apart, as steps of different lengths do.
        if ((b + round) % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await Promise.all(Array.from({ length: 40 }, (_, b) => branch(b)));
    writer.close();
    expect(early).toEqual([]);
    expect(readEventLog(path)).toHaveLength(320);
    expect(sync.done.length).toBeLessThanOrEqual(320 / 5);
  });

  it('rejects every flush waiting on a failed sync, and the next flush tries again', async () => {
    const path = join(tempDir(), 'events.jsonl');
    let failures = 1;
    let syncs = 0;
    const writer = new EventLogWriter(path, {
      datasync: (fd) => fdatasyncSync(fd),
      async datasyncAsync(fd) {
        syncs++;
        if (failures-- > 0) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
        await realSync(fd);
      },
    });
    writer.append(event(1));
    const first = writer.flush();
    writer.append(event(2));
    const second = writer.flush();
    // The second flush was waiting on the failed sync too: after a failed fdatasync nobody can say
    // what of the file reached the disk, so it learns of the failure as well, naming the file.
    await expect(first).rejects.toMatchObject({ code: 'EIO', path });
    await expect(second).rejects.toMatchObject({ code: 'EIO', path });
    expect(syncs).toBe(1);
    // The next flush tries again (the pause that follows a failed write is written this way).
    await writer.flush();
    expect(syncs).toBe(2);
    await writer.flush();
    expect(syncs).toBe(2); // nothing new: no sync
    writer.close();
  });

  it('closes the log only after a sync still running on it is done', async () => {
    const path = join(tempDir(), 'events.jsonl');
    const gates: (() => void)[] = [];
    const sync = countingSync(path, () => new Promise<void>((resolve) => gates.push(resolve)));
    const writer = new EventLogWriter(path, sync.fileSync);
    writer.append(event(1));
    const flushed = writer.flush();
    writer.close();
    gates[0]!();
    await expect(flushed).resolves.toBeUndefined();
    expect(sync.done).toEqual([1]);
  });
});
