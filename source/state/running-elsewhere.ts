import { formatAgo } from '../human-units.js';

/** The live process holding a session's lock, as the browser names it. */
export interface RunningOwner {
  pid: number;
  host: string;
  heartbeatAt: string;
}

/**
 * What the browser says of a session another live process is running (over its steps, and when r
 * would resume it): a resume would be refused (the lock is held), so no plan is offered; the person
 * learns where it runs instead.
 */
export function runningElsewhereMessage(id: string, owner: RunningOwner, now = Date.now()): string {
  return `session ${id.slice(0, 8)} is running in pid ${owner.pid} on host ${owner.host} (heartbeat ${formatAgo(Date.parse(owner.heartbeatAt), now)}) — it cannot be resumed while that process runs; follow it there, or press r again once it has stopped`;
}
