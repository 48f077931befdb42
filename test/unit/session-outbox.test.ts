import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobsOf, readOutbox } from '../../source/store/remote/session-outbox.js';
import { cursorFileName, readCursor, writeCursor } from '../../source/store/remote/sync-cursor.js';
import type { EngineEvent } from '../../source/engine/events.js';
import { tempDir } from '../helpers/temp-dir.js';

const remote = 'postgres://db.example:5432/acode';

function event(id: number, epoch: number, extra: Partial<EngineEvent> = {}, ts = `2026-01-01T00:00:${String(id).padStart(2, '0')}.000Z`): EngineEvent {
  return { type: 'tool_called', step: '0', attempt: 1, call_id: `c${id}`, name: 'file_read', args: {}, event_id: id, ts, epoch, ...extra } as EngineEvent;
}

function session(events: EngineEvent[], options: { mark?: number; locked?: boolean } = {}): string {
  const dir = join(tempDir('acode-outbox-'), 'session');
  mkdirSync(dir);
  writeFileSync(join(dir, 'events.jsonl'), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  if (options.mark !== undefined) writeFileSync(join(dir, 'epoch'), String(options.mark));
  if (options.locked) writeFileSync(join(dir, 'lock'), '{}');
  return dir;
}

const ids = (events: readonly EngineEvent[]) => events.map((e) => e.event_id);

describe('the outbox of a session', () => {
  it('holds every kept event past the cursor, in (ts, event_id) order', () => {
    const dir = session([event(1, 1), event(2, 1, {}, '2026-01-01T00:00:00.500Z'), event(3, 1)], { mark: 1, locked: true });
    const outbox = readOutbox(dir, remote);
    expect(ids(outbox.pending)).toEqual([2, 1, 3]);
    expect(outbox.pendingCount).toBe(3);
    expect(outbox.waiting).toBeUndefined();
  });

  it('never holds a late line of a superseded epoch', () => {
    const dir = session([event(1, 1), event(2, 1), event(3, 2, { based_on: 1 } as Partial<EngineEvent>), event(4, 1)], { mark: 2 });
    expect(ids(readOutbox(dir, remote).pending)).toEqual([1, 3]);
  });

  it('waits while a new lock holder has not written yet, since it may still fence out the tail', () => {
    const dir = session([event(1, 1), event(2, 1)], { mark: 2, locked: true });
    const outbox = readOutbox(dir, remote);
    expect(outbox.pending).toEqual([]);
    expect(outbox.pendingCount).toBe(2);
    expect(outbox.waiting).toMatch(/new lock holder/);
  });

  it('pushes once no lock is left, though the epoch mark is above the log (a holder unlocked before it wrote)', () => {
    const dir = session([event(1, 1), event(2, 1)], { mark: 3 });
    expect(ids(readOutbox(dir, remote).pending)).toEqual([1, 2]);
  });

  it('starts past the cursor, and finds nothing with one stat once the cursor saw the whole log', () => {
    const dir = session([event(1, 1), event(2, 1), event(3, 1)], { mark: 1 });
    writeCursor(dir, 's', { remote, event_id: 2, log_bytes: -1 });
    expect(ids(readOutbox(dir, remote).pending)).toEqual([3]);
    writeCursor(dir, 's', { remote, event_id: 3, log_bytes: statSync(join(dir, 'events.jsonl')).size });
    expect(readOutbox(dir, remote).pendingCount).toBe(0);
    appendFileSync(join(dir, 'events.jsonl'), `${JSON.stringify(event(4, 1))}\n`);
    expect(ids(readOutbox(dir, remote).pending)).toEqual([4]);
  });

  it('starts from nothing for another store', () => {
    const dir = session([event(1, 1)], { mark: 1 });
    writeCursor(dir, 's', { remote, event_id: 1, log_bytes: statSync(join(dir, 'events.jsonl')).size });
    expect(readCursor(dir, 'postgres://other:5432/acode').event_id).toBe(0);
    expect(readOutbox(dir, 'postgres://other:5432/acode').pendingCount).toBe(1);
  });

  it('ignores a torn last line (never durable)', () => {
    const dir = session([event(1, 1)], { mark: 1 });
    appendFileSync(join(dir, 'events.jsonl'), '{"type":"tool_ca');
    expect(ids(readOutbox(dir, remote).pending)).toEqual([1]);
  });
});

describe('the blobs an event names', () => {
  it('finds snapshot names in any *blob field, nested ones too', () => {
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    const written = { type: 'file_write_intended', before_blob: null, after_blob: a } as unknown as EngineEvent;
    const accepted = { type: 'environment_accepted', files: [{ path: 'x', hash: 'h', blob: b }] } as unknown as EngineEvent;
    expect([...blobsOf(written), ...blobsOf(accepted)]).toEqual([a, b]);
    expect(blobsOf(event(1, 1))).toEqual([]);
  });
});

const teamRemote = 'postgres://127.0.0.1:5432/team';
const line = (event_id: number, epoch: number, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ type: 'tool_called', step: '0', attempt: 1, call_id: `c${event_id}`, name: 'file_read', args: {}, event_id, ts: new Date(Date.UTC(2030, 0, 1, 0, 0, event_id)).toISOString(), epoch, ...extra })}\n`;

function grownSession() {
  const dir = join(tempDir(), 'sessions', 'abcdabcdabcdabcd');
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'events.jsonl');
  writeFileSync(log, [1, 2, 3].map((id) => line(id, 1)).join(''));
  writeFileSync(join(dir, 'epoch'), '2');
  return { dir, log };
}

describe("the outbox read from the cursor's byte offset", () => {
  it('reads only what follows the lines the store has, the fence going on from their epoch', () => {
    const { dir, log } = grownSession();
    const pushed = Buffer.byteLength([1, 2, 3].map((id) => line(id, 1)).join(''));
    writeFileSync(join(dir, cursorFileName), JSON.stringify({ remote: teamRemote, event_id: 3, log_bytes: pushed, epoch: 1 }));
    // A new holder (epoch 2, built on event 3) writes 4 and 5; a late line of epoch 1 follows; then a torn append.
    appendFileSync(log, line(4, 2, { based_on: 3 }) + line(5, 2) + line(4, 1));
    const whole = Buffer.byteLength(line(4, 2, { based_on: 3 }) + line(5, 2) + line(4, 1)) + pushed;
    appendFileSync(log, '{"type": "tool_ca');
    const outbox = readOutbox(dir, teamRemote);
    expect(outbox.pending.map((e) => `${e.event_id}:${e.epoch}`)).toEqual(['4:2', '5:2']);
    expect(outbox.logBytes).toBe(whole);
    expect(outbox.epoch).toBe(2);
  });

  it('reads the whole log when the cursor has no epoch (written before it was kept)', () => {
    const { dir, log } = grownSession();
    writeFileSync(join(dir, cursorFileName), JSON.stringify({ remote: teamRemote, event_id: 2, log_bytes: 10 }));
    appendFileSync(log, line(4, 2, { based_on: 3 }));
    expect(readOutbox(dir, teamRemote).pending.map((e) => e.event_id)).toEqual([3, 4]);
  });

  it('costs one stat when the log did not change since the cursor saw it whole, a torn tail too', () => {
    const { dir, log } = grownSession();
    const size = Buffer.byteLength([1, 2, 3].map((id) => line(id, 1)).join(''));
    writeFileSync(join(dir, cursorFileName), JSON.stringify({ remote: teamRemote, event_id: 3, log_bytes: size, epoch: 1 }));
    expect(readOutbox(dir, teamRemote)).toMatchObject({ pending: [], pendingCount: 0, logBytes: size });
    appendFileSync(log, '{"torn":');
    expect(readOutbox(dir, teamRemote)).toMatchObject({ pending: [], pendingCount: 0, logBytes: size });
  });
});
