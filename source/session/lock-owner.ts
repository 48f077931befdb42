import { hostname } from 'node:os';
import { formatAgo } from '../human-units.js';
import type { LockOwner } from './repository.js';

/** A lock's owner as every message names it: pid (and host, when another), since when, last heartbeat. */
export function describeOwner(owner: LockOwner): string {
  // A lock file the store could not read as a lock (store/session-lock.ts): it names no one.
  if (owner.pid <= 0) return 'a lock file that names no owner';
  return `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`} since ${owner.started_at} (heartbeat ${formatAgo(Date.parse(owner.heartbeat_at))})`;
}
