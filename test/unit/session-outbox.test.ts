import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOutbox } from '../../source/store/remote/session-outbox.js';
import { cursorFileName } from '../../source/store/remote/sync-cursor.js';
import { tempDir } from '../helpers/temp-dir.js';

const remote = 'postgres://127.0.0.1:5432/team';
const line = (event_id: number, epoch: number, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ type: 'tool_called', step: '0', attempt: 1, call_id: `c${event_id}`, name: 'file_read', args: {}, event_id, ts: new Date(Date.UTC(2030, 0, 1, 0, 0, event_id)).toISOString(), epoch, ...extra })}\n`;

function session() {
  const dir = join(tempDir(), 'sessions', 'abcdabcdabcdabcd');
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'events.jsonl');
  writeFileSync(log, [1, 2, 3].map((id) => line(id, 1)).join(''));
  writeFileSync(join(dir, 'epoch'), '2');
  return { dir, log };
}

describe("the outbox read from the cursor's byte offset", () => {
  it('reads only what follows the lines the store has, the fence going on from their epoch', () => {
    const { dir, log } = session();
    const pushed = Buffer.byteLength([1, 2, 3].map((id) => line(id, 1)).join(''));
    writeFileSync(join(dir, cursorFileName), JSON.stringify({ remote, event_id: 3, log_bytes: pushed, epoch: 1 }));
    // A new holder (epoch 2, built on event 3) writes 4 and 5; a late line of epoch 1 follows; then a torn append.
    appendFileSync(log, line(4, 2, { based_on: 3 }) + line(5, 2) + line(4, 1));
    const whole = Buffer.byteLength(line(4, 2, { based_on: 3 }) + line(5, 2) + line(4, 1)) + pushed;
    appendFileSync(log, '{"type": "tool_ca');
    const outbox = readOutbox(dir, remote);
    expect(outbox.pending.map((e) => `${e.event_id}:${e.epoch}`)).toEqual(['4:2', '5:2']);
    expect(outbox.logBytes).toBe(whole);
    expect(outbox.epoch).toBe(2);
  });

  it('reads the whole log when the cursor has no epoch (written before it was kept)', () => {
    const { dir, log } = session();
    writeFileSync(join(dir, cursorFileName), JSON.stringify({ remote, event_id: 2, log_bytes: 10 }));
    appendFileSync(log, line(4, 2, { based_on: 3 }));
    expect(readOutbox(dir, remote).pending.map((e) => e.event_id)).toEqual([3, 4]);
  });

  it('costs one stat when the log did not change since the cursor saw it whole, a torn tail too', () => {
    const { dir, log } = session();
    const size = Buffer.byteLength([1, 2, 3].map((id) => line(id, 1)).join(''));
    writeFileSync(join(dir, cursorFileName), JSON.stringify({ remote, event_id: 3, log_bytes: size, epoch: 1 }));
    expect(readOutbox(dir, remote)).toMatchObject({ pending: [], pendingCount: 0, logBytes: size });
    appendFileSync(log, '{"torn":');
    expect(readOutbox(dir, remote)).toMatchObject({ pending: [], pendingCount: 0, logBytes: size });
  });
});
