import { describe, expect, it } from 'vitest';
import { fenceEvents } from '../../source/engine/epoch-fence.js';
import type { EngineEvent, EngineEventBody } from '../../source/engine/events.js';
import { recoverProgress } from '../../source/engine/replay-check.js';
import { applyEvent, initialProgress, replayEvents, toCheckpoint } from '../../source/engine/session-progress.js';

const usage = { input: 1, output: 1 };
let clock = 0;

/** One event as holder `epoch` writes it; `based_on` only on a holder's first event. */
function ev(id: number, epoch: number | undefined, body: EngineEventBody, basedOn?: number): EngineEvent {
  return { ...body, event_id: id, ts: new Date(1000 + clock++).toISOString(), ...(epoch === undefined ? {} : { epoch }), ...(basedOn === undefined ? {} : { based_on: basedOn }) } as EngineEvent;
}
const started = (step: number, attempt = 1): EngineEventBody => ({ type: 'step_started', step: String(step), agent: 'a', attempt, idempotency_key: `s:${step}:${attempt}` });
const completed = (step: number, attempt = 1): EngineEventBody => ({ type: 'step_completed', step: String(step), agent: 'a', attempt, idempotency_key: `s:${step}:${attempt}`, response: `r${step}`, usage, duration_ms: 1 });
const toolCalled = (step: number, attempt = 1): EngineEventBody => ({ type: 'tool_called', step: String(step), attempt, call_id: `c${step}`, name: 'file_write', args: {} });
const sessionStarted: EngineEventBody = { type: 'session_started', workflow_name: 'w', steps_total: 4, resumed: false, steps_skipped: 0, tokens: { input: 0, output: 0 } };
const takenOver: EngineEventBody = { type: 'lock_taken_over', previous_pid: 1, previous_host: 'h', why: 'its heartbeat stopped' };

function checkpointOf(events: EngineEvent[]) {
  const progress = initialProgress(4);
  for (const event of events) applyEvent(progress, event);
  return toCheckpoint(progress);
}

/**
 * Holder 1 runs step 0 and starts step 1, then freezes; holder 2 takes over, based on event 4.
 * Holder 1 wakes: its tool_called (id 5) lands before holder 2's first event, its
 * step_completed (id 6) between holder 2's events — both ids collide with holder 2's.
 */
function takeoverLog() {
  const before = [ev(1, 1, sessionStarted, 0), ev(2, 1, started(0)), ev(3, 1, completed(0)), ev(4, 1, started(1))];
  const strayEarly = ev(5, 1, toolCalled(1));
  const second = [ev(5, 2, takenOver, 4), ev(6, 2, sessionStarted), ev(7, 2, started(1, 2))];
  const strayLate = ev(6, 1, completed(1));
  const rest = [ev(8, 2, completed(1, 2))];
  return { file: [...before, strayEarly, ...second, strayLate, ...rest], kept: [...before, ...second, ...rest], strayEarly, strayLate };
}

describe('fencing out a superseded lock holder', () => {
  it('keeps a log written before epochs as it is', () => {
    const old = [ev(1, undefined, sessionStarted), ev(2, undefined, started(0)), ev(3, undefined, completed(0))];
    expect(fenceEvents(old)).toEqual(old);
    expect(replayEvents(old, 4).steps_done).toBe(1);
  });

  it("drops the old holder's events after what the new holder read, even those that reached the file first", () => {
    const { file, kept } = takeoverLog();
    expect(fenceEvents(file)).toEqual(kept);
    expect(fenceEvents(fenceEvents(file))).toEqual(kept);
  });

  it('fences every holder a later one superseded (a first event without based_on is based on the event before it)', () => {
    const log = [ev(1, 1, sessionStarted, 0), ev(2, 1, started(0)), ev(3, 2, takenOver), ev(3, 1, completed(0)), ev(4, 2, started(0, 2)), ev(5, 3, takenOver, 4), ev(5, 2, completed(0, 2)), ev(6, 3, started(0, 3))];
    expect(fenceEvents(log).map((e) => [e.event_id, e.epoch])).toEqual([[1, 1], [2, 1], [3, 2], [4, 2], [5, 3], [6, 3]]);
  });

  it('replays to the new holder\'s state: no step completed twice, no repeated event id', () => {
    const { file, kept } = takeoverLog();
    const progress = recoverProgress(file, checkpointOf(kept));
    expect(Object.values(progress.completed).map((r) => r.response)).toEqual(['r0', 'r1']);
    expect(progress).toMatchObject({ steps_done: 2, last_event_id: 8, epoch: 2 });
  });

  it('rebuilds from the log a checkpoint the old holder wrote after losing the lock', () => {
    const { file, kept, strayLate } = takeoverLog();
    // The old holder's checkpoint after its fenced step_completed (event 6 of epoch 1).
    const stale = checkpointOf([...kept.slice(0, 4), strayLate]);
    expect(stale).toMatchObject({ last_event_id: 6, epoch: 1, steps_done: 2 });
    const progress = recoverProgress(file, stale);
    expect(progress).toMatchObject({ steps_done: 2, last_event_id: 8, epoch: 2 });
    expect(progress.completed['1']).toMatchObject({ response: 'r1' });
  });

  it('still refuses a checkpoint of the latest epoch that the log does not reach (lost events)', () => {
    const { file, kept } = takeoverLog();
    expect(() => recoverProgress(file.slice(0, 7), checkpointOf(kept))).toThrowError(/events were lost/);
  });
});
