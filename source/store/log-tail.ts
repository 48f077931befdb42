import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { epochOf, fenceEvents } from '../engine/epoch-fence.js';
import type { EngineEvent } from '../engine/events.js';
import { upgradeEvent } from '../engine/event-upgrade.js';
import { eventShapeProblem } from '../engine/event-shape.js';
import { applyEvent, compareEvents, initialProgress, toCheckpoint, type Checkpoint } from '../engine/session-progress.js';

/** How far back from the log's end a listing looks for the snapshot's last event before it gives up and shows the snapshot. */
const maxTailBytes = 4 << 20;

/**
 * The events after the snapshot's last event, read from the end of the log: a window that doubles
 * from 64 KiB until it reaches that event — one snapshot interval at most (256 events or 1 s of a
 * run, see session-journal.ts), never the whole log of a long session. Undefined when the event is
 * not within reach or a line does not parse: the caller shows the snapshot as it is.
 */
function eventsAfter(log: string, checkpoint: Pick<Checkpoint, 'last_event_id' | 'epoch'>): EngineEvent[] | undefined {
  let fd: number;
  try {
    fd = openSync(log, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    for (let window = 1 << 16; ; window *= 2) {
      const start = Math.max(0, size - window);
      const bytes = Buffer.alloc(size - start);
      readSync(fd, bytes, 0, bytes.length, start);
      // Whole lines only: the window's first line may be cut, what follows the last newline is a torn append.
      const from = start === 0 ? 0 : bytes.indexOf(10) + 1;
      const lines = bytes.subarray(from, bytes.lastIndexOf(10) + 1).toString('utf8').split('\n');
      const after: EngineEvent[] = [];
      for (let i = lines.length - 1; i >= 0; i--) {
        if (lines[i]!.length === 0) continue;
        const event = upgradeEvent(JSON.parse(lines[i]!) as EngineEvent);
        // A line that is not a whole event: the snapshot is shown as it is (reading the whole log names the line).
        if (eventShapeProblem(event)) return undefined;
        // A lower id of a lower epoch is a superseded holder's stray, appended late: passed over, not the snapshot's event.
        if (event.event_id <= checkpoint.last_event_id && epochOf(event) >= checkpoint.epoch) return after.reverse();
        if (event.event_id > checkpoint.last_event_id) after.push(event);
      }
      if (start === 0) return after.reverse();
      if (window >= maxTailBytes) return undefined;
    }
  } catch {
    // A damaged line: the listing shows the snapshot; resume reports the damage where it reads the log.
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A running session's snapshot rolled forward over the events its log holds past it, for listings:
 * the snapshot is written lazily, so a run going on now, or one killed mid-way, has events after it
 * — a listing would otherwise show fewer steps done than there are. Superseded lock holders' events
 * in that stretch are fenced out as replay fences them. Resume never uses this: it replays the
 * whole log and checks it against the snapshot.
 */
export function rolledForward(sessionDir: string, checkpoint: Checkpoint): Checkpoint {
  // Running, or waiting for an answer while other branches ran on: either may have events past its snapshot.
  if (checkpoint.status !== 'running' && checkpoint.status !== 'awaiting_approval') return checkpoint;
  const after = eventsAfter(join(sessionDir, 'events.jsonl'), checkpoint);
  if (!after?.length) return checkpoint;
  const progress = { ...initialProgress(checkpoint.steps_total), ...structuredClone(checkpoint) };
  for (const event of fenceEvents(after).sort(compareEvents)) applyEvent(progress, event);
  return toCheckpoint(progress);
}
