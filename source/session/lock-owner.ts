import { hostname } from 'node:os';
import { formatAgo } from '../human-units.js';
import type { LockOwner } from './repository.js';

/** A lock's owner as every message names it: pid (and host, when another), since when, last heartbeat. */
export function describeOwner(owner: LockOwner): string {
  return `pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`} since ${owner.started_at} (heartbeat ${formatAgo(Date.parse(owner.heartbeat_at))})`;
}
