import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../source/engine/events.js';
import { EventLogWriter, readEventLog } from '../../source/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';

const event = (id: number, epoch: number, extra: object = {}): EngineEvent =>
  ({ type: 'lock_taken_over', previous_pid: 1, previous_host: 'h', why: 'x', event_id: id, ts: `2026-01-01T00:00:0${id}.000Z`, epoch, ...extra }) as EngineEvent;

describe('an append whose sync fails', () => {
  it('never cuts off what another holder appended meanwhile', () => {
    const path = join(tempDir(), 'events.jsonl');
    const setup = new EventLogWriter(path);
    setup.append(event(1, 1), true);
    setup.append(event(2, 1), true);
    const newHolder = new EventLogWriter(path);
    // The old holder (epoch 1) writes its line, then its fdatasync stalls past the lock timeout: the
    // new holder takes over and appends durably, and only then does the old holder's sync fail.
    const oldHolder = new EventLogWriter(path, {
      datasync() {
        newHolder.append(event(4, 2, { based_on: 3 }), true);
        newHolder.append(event(5, 2), true);
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      },
    });
    expect(() => oldHolder.append(event(3, 1), true)).toThrow(/ENOSPC/);
    expect(readEventLog(path).map((e) => `${e.event_id}@${e.epoch}`)).toEqual(['1@1', '2@1', '3@1', '4@2', '5@2']);
  });

  it('keeps the whole line it wrote: the pause that follows is rebuilt from the log as it stands', () => {
    const path = join(tempDir(), 'events.jsonl');
    const writer = new EventLogWriter(path, {
      datasync() {
        throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
      },
    });
    expect(() => writer.append(event(1, 1), true)).toThrow(/EIO/);
    expect(readEventLog(path).map((e) => e.event_id)).toEqual([1]);
  });
});
