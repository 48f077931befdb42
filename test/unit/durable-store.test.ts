import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DurableJsonFileSync } from '../../source/store/durable-json-adapter.js';
import { writeFileDurable } from '../../source/store/durable-file.js';
import { EventLogWriter, readEventLog } from '../../source/store/event-log.js';
import type { EngineEvent } from '../../source/engine/events.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';
import { tempDir } from '../helpers/temp-dir.js';

const writerLoop = `
import { writeFileDurable } from './source/store/durable-file.ts';
const [path] = process.argv.slice(2);
for (let seq = 1; ; seq++) {
  writeFileDurable(path, JSON.stringify({ seq, pad: 'x'.repeat(200000 + (seq % 7) * 1000) }));
  if (seq === 1) process.stdout.write('first\\n');
}
`;

function event(id: number): EngineEvent {
  return { type: 'step_skipped', step: String(id), agent: 'a', event_id: id, ts: new Date(1000 * id).toISOString() };
}

describe('durable checkpoint writes', () => {
  it('leaves the old or the new checkpoint, never a torn one, when the writer is killed with SIGKILL', async () => {
    const child = bundleForChild(writerLoop);
    const dir = tempDir();
    const path = join(dir, 'session.json');
    for (let round = 0; round < 12; round++) {
      const proc = spawn(process.execPath, [child, path], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => proc.stdout.once('data', () => resolve()));
      // Kill at a different point of the write cycle each round.
      await new Promise((resolve) => setTimeout(resolve, 1 + (round * 7) % 23));
      proc.kill('SIGKILL');
      await new Promise((resolve) => proc.once('close', resolve));
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as { seq: number; pad: string };
      expect(parsed.seq).toBeGreaterThan(0);
      expect(parsed.pad.length).toBe(200000 + (parsed.seq % 7) * 1000);
    }
  });

  it('never lets a torn temp file replace a good checkpoint', () => {
    const dir = tempDir();
    const path = join(dir, 'session.json');
    const adapter = new DurableJsonFileSync(path, (raw) => raw as { seq: number });
    adapter.write({ seq: 1 });
    // What a crash mid-write leaves behind: a half-written temp file beside the checkpoint.
    writeFileSync(join(dir, `.session.json.99999.1.tmp`), '{"seq": 2, "pad": "xxxx');
    expect(adapter.read()).toEqual({ seq: 1 });
    adapter.write({ seq: 3 });
    expect(adapter.read()).toEqual({ seq: 3 });
  });

  it('writes through a temp file in the same directory and leaves none behind', () => {
    const dir = tempDir();
    writeFileDurable(join(dir, 'a.json'), '{"ok":true}');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });
});

describe('the event log', () => {
  it('ignores a torn last line and cuts it before the next append', () => {
    const path = join(tempDir(), 'events.jsonl');
    const writer = new EventLogWriter(path);
    writer.append(event(1), true);
    writer.append(event(2), true);
    writer.close();
    appendFileSync(path, '{"type":"step_sk'); // a crash mid-append
    expect(readEventLog(path).map((e) => e.event_id)).toEqual([1, 2]);

    const reopened = new EventLogWriter(path);
    reopened.append(event(3), true);
    reopened.close();
    expect(readEventLog(path).map((e) => e.event_id)).toEqual([1, 2, 3]);
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(4);
  });

  it('refuses a log damaged in the middle', () => {
    const path = join(tempDir(), 'events.jsonl');
    writeFileSync(path, `${JSON.stringify(event(1))}\nnot json\n${JSON.stringify(event(3))}\n`);
    expect(() => readEventLog(path)).toThrowError(/line 2 is not valid JSON/);
  });
});
