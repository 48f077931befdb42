import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { formatAgo } from '../../human-units.js';
import { processAlive, processStart } from '../process-liveness.js';
import type { RemoteConnection } from './remote-client.js';

/**
 * The team store's lease of a session (acode_leases): the machine-wide counterpart of the session's
 * lock file. A process that runs a session holds both; another machine (another ACODE_HOME) that
 * wants to resume it must take the lease first, and cannot while its holder beats it.
 */

/** Who a lease names: the process that holds it, on which host and home, with which epoch. */
export interface RemoteHolder {
  host: string;
  pid: number;
  home: string;
  epoch: number;
  token: string;
  proc_start: string | null;
  taken_at: string;
  heartbeat_at: string;
  /** Seconds since its last heartbeat, by the server's clock (no clock of a client is compared). */
  silent_s: number;
}

/** This process's claim: a token per acquisition, the lock epoch it stamps on its events. */
export interface LeaseClaim {
  readonly token: string;
  epoch: number;
  readonly home: string;
}

export function newClaim(home: string, epoch: number): LeaseClaim {
  return { token: randomBytes(8).toString('hex'), epoch, home };
}

export type HoldResult =
  | { held: true; tookOverFrom?: { holder: RemoteHolder; why: string } }
  /** A live process holds it (or a newer one superseded this claim: its epoch is at least ours). */
  | { held: false; holder: RemoteHolder; why?: 'superseded' }
  /** Nobody live holds it, but the store already knows an epoch at least ours: try again above `epoch`. */
  | { held: false; epochBelow: number };

interface HolderRow {
  host: string;
  pid: number;
  home: string;
  epoch: number;
  token: string;
  proc_start: string | null;
  taken_at: Date;
  heartbeat_at: Date;
  silent_s: number;
}

/** The lease's holder now, if any. */
export async function leaseHolder(db: RemoteConnection, sessionId: string): Promise<RemoteHolder | undefined> {
  const [row] = await db.query<HolderRow>(
    `SELECT host, pid, home, epoch, token, proc_start, taken_at, heartbeat_at, extract(epoch FROM now() - heartbeat_at)::float8 AS silent_s FROM acode_leases WHERE session_id = $1`,
    [sessionId],
  );
  return row && { ...row, taken_at: row.taken_at.toISOString(), heartbeat_at: row.heartbeat_at.toISOString(), silent_s: Number(row.silent_s) };
}

/** Whether a holder still runs: a dead (or recycled) pid on this host, or a heartbeat silent past the timeout, is stale. */
export function judgeHolder(holder: RemoteHolder, timeoutMs: number): { kind: 'held' } | { kind: 'stale'; why: string } {
  if (holder.host === hostname()) {
    if (!processAlive(holder.pid)) return { kind: 'stale', why: `its holder (pid ${holder.pid} on ${holder.host}) is no longer running` };
    const start = processStart(holder.pid);
    if (holder.proc_start && start && start !== holder.proc_start) return { kind: 'stale', why: `pid ${holder.pid} on ${holder.host} now belongs to another process` };
  }
  if (holder.silent_s * 1000 > timeoutMs) return { kind: 'stale', why: `its holder's heartbeat (pid ${holder.pid} on ${holder.host}) stopped ${Math.round(holder.silent_s)} s ago` };
  return { kind: 'held' };
}

/** A holder as messages name it: host, pid, home, since when, last heartbeat. */
export function describeHolder(holder: RemoteHolder): string {
  const home = holder.home ? `, ACODE_HOME ${holder.home}` : '';
  return `host ${holder.host} (pid ${holder.pid}${home}) since ${holder.taken_at} (heartbeat ${formatAgo(Date.now() - holder.silent_s * 1000)})`;
}

/**
 * Takes or renews the lease for `claim`: renewed while the token is ours, inserted when nobody has
 * it; taken over from a stale holder of a lower epoch, compare-and-swap on its token (two takers
 * of one stale lease: one wins, the other finds the winner live). One statement a heartbeat when
 * all is well. An epoch the store already holds at or above ours is never reused: `taking` (a
 * resume that has not held it yet) is told to go above it, a holder is told it was superseded.
 */
export async function holdLease(db: RemoteConnection, sessionId: string, claim: LeaseClaim, timeoutMs: number, taking = false): Promise<HoldResult> {
  const me = [sessionId, hostname(), process.pid, claim.epoch, claim.token, claim.home, processStart(process.pid)];
  for (let tries = 0; tries < 3; tries++) {
    const renewed = await db.execute(
      `INSERT INTO acode_leases (session_id, host, pid, epoch, heartbeat_at, token, home, proc_start, taken_at)
       SELECT $1, $2, $3, $4, now(), $5, $6, $7, now()
       WHERE NOT EXISTS (SELECT 1 FROM acode_epochs e WHERE e.session_id = $1 AND e.epoch > $4)
       ON CONFLICT (session_id) DO UPDATE SET heartbeat_at = now(), epoch = greatest(acode_leases.epoch, EXCLUDED.epoch)
       WHERE acode_leases.token = EXCLUDED.token`,
      me,
    );
    if (renewed === 1) return { held: true };
    const holder = await leaseHolder(db, sessionId);
    if (!holder) {
      const [known] = await db.query<{ epoch: number | null }>('SELECT max(epoch)::integer AS epoch FROM acode_epochs WHERE session_id = $1', [sessionId]);
      if (known?.epoch == null) continue; // released between the two statements
      return { held: false, epochBelow: known.epoch };
    }
    if (holder.token === claim.token) continue;
    const state = judgeHolder(holder, timeoutMs);
    if (state.kind === 'held') return { held: false, holder };
    // Taking it: try again above that epoch. Holding it already: a newer holder superseded this one.
    if (holder.epoch >= claim.epoch) return taking ? { held: false, epochBelow: holder.epoch } : { held: false, holder, why: 'superseded' };
    const taken = await db.execute(
      `UPDATE acode_leases SET host = $2, pid = $3, epoch = $4, heartbeat_at = now(), token = $5, home = $6, proc_start = $7, taken_at = now()
       WHERE session_id = $1 AND token = $8 AND NOT EXISTS (SELECT 1 FROM acode_epochs e WHERE e.session_id = $1 AND e.epoch > $4)`,
      [...me, holder.token],
    );
    if (taken === 1) return { held: true, tookOverFrom: { holder, why: state.why } };
  }
  const holder = await leaseHolder(db, sessionId);
  if (holder && holder.token !== claim.token) return { held: false, holder };
  throw new Error(`could not take the team store's lease of session ${sessionId}: it keeps changing hands`);
}

/** The highest epoch the store knows of the session (its lease's, its events'): a new holder goes above it. */
export async function storeEpoch(db: RemoteConnection, sessionId: string): Promise<number> {
  const [row] = await db.query<{ epoch: number }>(
    `SELECT greatest((SELECT max(epoch) FROM acode_leases WHERE session_id = $1), (SELECT max(epoch) FROM acode_epochs WHERE session_id = $1), 0)::integer AS epoch`,
    [sessionId],
  );
  return row?.epoch ?? 0;
}

/** Lets the lease go, if it is still ours. */
export async function releaseLease(db: RemoteConnection, sessionId: string, claim: LeaseClaim): Promise<void> {
  await db.execute('DELETE FROM acode_leases WHERE session_id = $1 AND token = $2', [sessionId, claim.token]);
}
