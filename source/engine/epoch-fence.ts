import type { EngineEvent } from './events.js';

/** The lock epoch an event was written under; logs from before epochs carry none (0). */
export function epochOf(event: Pick<EngineEvent, 'epoch'>): number {
  return event.epoch ?? 0;
}

/**
 * Drops the events of superseded lock holders, in file (append) order, before anything sorts or
 * applies them (DESIGN.md §3). A holder that was frozen past the lock timeout can wake up and append
 * before it notices that another process took the session over; what it appends must change nothing.
 *
 * An event whose epoch is higher than any seen before starts a new epoch. Its holder built its
 * state from the events up to `based_on` (else the event just before its own): events of lower
 * epochs appended after that point — even those that reached the file before this one — are
 * fenced out, and so is every later event of a lower epoch. Kept events therefore form one unbroken
 * history with increasing event ids. Applying the rule twice changes nothing.
 */
export function fenceEvents(events: readonly EngineEvent[], fromEpoch = 0): EngineEvent[] {
  const kept: EngineEvent[] = [];
  // A log read from the middle (the team store's outbox): the highest epoch of what came before.
  let epoch = fromEpoch;
  for (const event of events) {
    const own = epochOf(event);
    if (own < epoch) continue;
    if (own > epoch) {
      epoch = own;
      const basedOn = event.based_on ?? event.event_id - 1;
      // Kept ids increase, so what the new holder never read is a tail of the kept list.
      while (kept.length > 0 && kept[kept.length - 1]!.event_id > basedOn) kept.pop();
    }
    kept.push(event);
  }
  return kept;
}

/** The highest epoch any event of the log was written under (fenced ones included). */
export function highestEpoch(events: readonly EngineEvent[]): number {
  let highest = 0;
  for (const event of events) highest = Math.max(highest, epochOf(event));
  return highest;
}
