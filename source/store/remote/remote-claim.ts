import { join } from 'node:path';
import { AcodeError, ExitCode } from '../../errors/acode-error.js';
import type { SessionRepository } from '../../session/repository.js';
import { readEpochMark } from '../session-lock.js';
import { connectRemote, type RemoteConnection } from './remote-client.js';
import { flushBudgetMs, flushHome, sessionsWithPending } from './flush-home.js';
import { describeHolder, holdLease, leaseHolder, judgeHolder, newClaim, releaseLease, storeEpoch, type LeaseClaim, type RemoteHolder } from './remote-lease.js';
import type { RemoteTarget } from './remote-url.js';
import { requireCurrentSchema } from './schema-migrate.js';
import { readOutbox } from './session-outbox.js';
import { fetchSession, findRemoteSession, type PulledSession } from './session-pull.js';
import { cursorFileName } from './sync-cursor.js';
import { recordAttempt } from './sync-state.js';

/** What a resume holds of the team store: its connection and the session's lease, until the run's push takes them over. */
export interface RemoteClaim {
  readonly target: RemoteTarget;
  readonly db: RemoteConnection;
  readonly sessionId: string;
  readonly claim: LeaseClaim;
  /** The lease was stale, and taken from this holder. */
  readonly tookOverFrom?: { holder: RemoteHolder; why: string };
  /** What was pulled into this home (the session was not here, or the store had more of it). */
  readonly pulled?: { host: string; events: number; blobs: number; replaced: boolean; movedFrom?: string; droppedName?: string };
  /** Lets the lease go and closes the connection: for a resume that stops before it runs. */
  release(): Promise<void>;
}

/** The refusal of a session another machine's process holds (exit 16), naming that host. */
export function heldElsewhere(id: string, holder: RemoteHolder): AcodeError {
  return new AcodeError(
    `session ${id} is in use on ${describeHolder(holder)}: the team store's lease is held there. Wait for it to finish or stop it there; a holder that stopped lets it go within resume.lock_timeout_seconds of its last heartbeat`,
    ExitCode.locked,
    'ACODE-RESUME-003',
  );
}

/** Takes the lease above every epoch this home and the store know of the session; refuses (exit 16) while another process holds it. */
async function takeLease(db: RemoteConnection, id: string, home: string, localEpoch: number, timeoutMs: number): Promise<{ claim: LeaseClaim; tookOverFrom?: { holder: RemoteHolder; why: string } }> {
  const claim = newClaim(home, Math.max(localEpoch, await storeEpoch(db, id)) + 1);
  for (let tries = 0; tries < 3; tries++) {
    const result = await holdLease(db, id, claim, timeoutMs, true);
    if (result.held) return result.tookOverFrom ? { claim, tookOverFrom: result.tookOverFrom } : { claim };
    if ('holder' in result) throw heldElsewhere(id, result.holder);
    claim.epoch = result.epochBelow + 1;
  }
  throw new Error(`could not take the team store's lease of session ${id}: its epoch keeps rising`);
}

export interface ResumeClaimRequest {
  home: string;
  repository: SessionRepository;
  target: RemoteTarget;
  /** The session: its id when it is in this home, else what the person typed (id, prefix or name). */
  session: { local: string } | { typed: string };
  /** The folder a pulled session runs in here, given the one it ran in. */
  placeIn: (ranIn: string) => string;
  timeoutMs: number;
}

/**
 * Before a resume runs, with the store answering: this session's pending events pushed first, then
 * the store's lease taken (exit 16 naming the host while another live process holds it), then the
 * session pulled — whole when this home lacks it, again when the store holds events this home
 * lacks (another machine ran it since, and every step it finished stays finished). On any failure
 * the lease is let go and the connection closed. Throws the store's AcodeError when it cannot be reached.
 */
export async function claimForResume(request: ResumeClaimRequest): Promise<RemoteClaim> {
  const { home, repository, target, timeoutMs } = request;
  const at = new Date().toISOString();
  const deadline = Date.now() + flushBudgetMs;
  // A session of this home goes on degraded once the budget is spent, connecting included; one to pull needs the store.
  let db = 'local' in request.session ? await connectBy(target, deadline) : await connectRemote(target);
  let claim: LeaseClaim | undefined;
  let id = 'local' in request.session ? request.session.local : '';
  try {
    await requireCurrentSchema(db, target.shown);
    recordAttempt(home, { remote: target.shown, at, ok: true, reason: null });
    // Every pending event of this home first (this session's before the others'), for flushBudgetMs at most.
    const flushed = await flushHome(db, home, target, sessionsWithPending(home, target, await repository.list({ write: false }), id || undefined), deadline);
    if (flushed.outOfTime) {
      db.abandon();
      // A session of this home runs on its lock alone (the run's push goes on, and takes the lease); one to pull needs the store.
      if ('local' in request.session) throw slowStore(target, flushed.left);
      db = await connectRemote(target);
    }
    if ('typed' in request.session) {
      const found = await findRemoteSession(db, request.session.typed);
      if (!found) {
        throw new AcodeError(`no session matches '${request.session.typed}' in ${home} nor in the team store ${target.shown}; run 'acode sessions list --remote' to see the store's`, ExitCode.failure, 'ACODE-RESUME-005');
      }
      id = found.id;
    }
    const dir = join(home, 'sessions', id);
    const taken = await takeLease(db, id, home, 'local' in request.session ? readEpochMark(dir) : 0, timeoutMs);
    claim = taken.claim;
    const pulled = await pullIfBehind(db, repository, target, id, 'typed' in request.session, request.placeIn);
    const held = claim;
    let released = false;
    return {
      target,
      db,
      sessionId: id,
      claim: held,
      ...(taken.tookOverFrom ? { tookOverFrom: taken.tookOverFrom } : {}),
      ...(pulled ? { pulled } : {}),
      async release() {
        if (released) return;
        released = true;
        await releaseLease(db, id, held).catch(() => {});
        await db.close();
      },
    };
  } catch (error) {
    if (claim) await releaseLease(db, id, claim).catch(() => {});
    await db.close();
    throw error;
  }
}

/**
 * A connection made by `deadline`, or an AcodeError saying the store did not answer in time (a
 * connection that comes later is closed): the driver's own connect timeout (5 s) is longer than
 * the budget a resume of a session this home has gives the store.
 */
async function connectBy(target: RemoteTarget, deadline: number): Promise<RemoteConnection> {
  const connecting = connectRemote(target);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()))));
  try {
    const db = await Promise.race([connecting, late]);
    if (db) return db;
    void connecting.then((later) => later.close(), () => {});
    throw new AcodeError(`cannot reach the team store: no answer from ${target.shown} within ${flushBudgetMs / 1000} s; local sessions are unaffected, and the run's push sends the rest`, ExitCode.failure);
  } finally {
    clearTimeout(timer);
  }
}

/** A store too slow to take this home's pending events within flushBudgetMs: said as a store that cannot be reached (the resume goes on here, degraded). */
function slowStore(target: RemoteTarget, left: number): AcodeError {
  return new AcodeError(
    `cannot reach the team store: ${target.shown} took more than ${flushBudgetMs / 1000} s to take this home's pending events (${left} still pending); local sessions are unaffected, and the run's push sends the rest`,
    ExitCode.failure,
  );
}

/**
 * Pulls the session when this home lacks it, or lacks events the store holds (nothing of this
 * home's is pending: it was just pushed). Undefined when this home is up to date.
 */
async function pullIfBehind(db: RemoteConnection, repository: SessionRepository, target: RemoteTarget, id: string, absent: boolean, placeIn: (ranIn: string) => string): Promise<RemoteClaim['pulled']> {
  let here: string | undefined;
  if (!absent) {
    const dir = join(repository.home, 'sessions', id);
    const outbox = readOutbox(dir, target.shown);
    if (outbox.pendingCount > 0) return undefined;
    const [row] = await db.query<{ last: number | null }>('SELECT max(event_id)::integer AS last FROM acode_events WHERE session_id = $1', [id]);
    if ((row?.last ?? 0) <= outbox.cursor.event_id) return undefined;
    here = (await repository.open(id)).record.cwd;
  }
  const pulled: PulledSession = await fetchSession(db, target.shown, id, here === undefined ? placeIn : () => here);
  const lines = pulled.events.reduce((bytes, event) => bytes + Buffer.byteLength(`${JSON.stringify(event)}\n`), 0);
  const cursor = { remote: target.shown, event_id: pulled.events.at(-1)?.event_id ?? 0, log_bytes: lines, epoch: pulled.epoch, with_record: true };
  const { droppedName } = await repository.adopt({ ...pulled, extra: { [cursorFileName]: `${JSON.stringify(cursor)}\n` } }, !absent);
  const moves = pulled.record.relocations ?? [];
  const moved = moves.at(-1);
  return {
    host: pulled.host,
    events: pulled.events.length,
    blobs: pulled.blobs.size,
    replaced: !absent,
    ...(moved && moved.to === pulled.record.cwd && moved.through_event === cursor.event_id ? { movedFrom: moved.from } : {}),
    ...(droppedName ? { droppedName } : {}),
  };
}

/**
 * For `acode resume --dry-run` of a session this home lacks: what a resume would pull, read
 * without writing anything; a refusal (exit 16) while another live process holds its lease.
 */
export async function describePull(target: RemoteTarget, typed: string, timeoutMs: number): Promise<{ id: string; host: string; events: number; status: string }> {
  const db = await connectRemote(target);
  try {
    await requireCurrentSchema(db, target.shown);
    const found = await findRemoteSession(db, typed);
    if (!found) throw new AcodeError(`no session matches '${typed}' here nor in the team store ${target.shown}`, ExitCode.failure, 'ACODE-RESUME-005');
    const holder = await leaseHolder(db, found.id);
    if (holder && judgeHolder(holder, timeoutMs).kind === 'held') throw heldElsewhere(found.id, holder);
    const [row] = await db.query<{ events: number; status: string }>('SELECT (SELECT count(*)::integer FROM acode_events WHERE session_id = $1) AS events, status FROM acode_sessions WHERE id = $1', [found.id]);
    return { id: found.id, host: found.host, events: row?.events ?? 0, status: row?.status ?? 'unknown' };
  } finally {
    await db.close();
  }
}
