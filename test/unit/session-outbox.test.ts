import { appendFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobsOf, readOutbox } from '../../source/store/remote/session-outbox.js';
import { readCursor, writeCursor } from '../../source/store/remote/sync-cursor.js';
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
