import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AcodeError, ExitCode, isAcodeError } from '../errors/acode-error.js';
import { plural } from '../human-units.js';
import type { SessionRepository } from '../session/repository.js';
import type { RemoteClaim } from '../store/remote/remote-claim.js';
import { usableRemoteTarget, type RemoteTarget } from '../store/remote/remote-url.js';
import { terminalText } from '../printable-text.js';
import type { CommandContext } from './command-context.js';

/**
 * A resume's side of the team store (FR-051…055): a session this home lacks is pulled from the
 * store, a session it has is pushed first and its lease taken in the store, so that two machines
 * never run one session at once. The store's code (and `pg`) is loaded only when one is configured.
 */

/** The store configured for this resume, or undefined; a URL that cannot be used is said once, and the resume goes on here. */
export function resumeTarget(ctx: CommandContext, home: string): RemoteTarget | undefined {
  return usableRemoteTarget(home, ctx.cwd, ctx.env, (line) => ctx.stderr.write(line));
}

/** Whether `typed` names a session of this home (false when nothing here matches it). */
export async function isHere(repository: SessionRepository, typed: string): Promise<boolean> {
  try {
    await repository.resolveId(typed);
    return true;
  } catch (error) {
    if (isAcodeError(error) && error.code === 'ACODE-RESUME-005') return false;
    throw error;
  }
}

const isFolder = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Where a pulled session runs here: `--cwd` when given, else the folder it ran in when this machine
 * has it, else the folder the resume is started in.
 */
export function folderChooser(ctx: CommandContext, cwdFlag: string | undefined): (ranIn: string) => string {
  if (cwdFlag !== undefined) {
    const chosen = resolve(ctx.cwd, cwdFlag);
    if (!isFolder(chosen)) throw new AcodeError(`--cwd ${cwdFlag}: ${chosen} is not a folder; give the folder the session should run in here`, ExitCode.usage);
    return () => chosen;
  }
  return (ranIn) => (ranIn && isFolder(ranIn) ? ranIn : ctx.cwd);
}

/** Said once the session is pulled: from where, how much, and where it runs here. */
function announcePull(ctx: CommandContext, claim: RemoteClaim, cwd: string): void {
  const pulled = claim.pulled;
  if (!pulled) return;
  const how = pulled.replaced ? `the team store holds more of session ${claim.sessionId} than this home (it ran on ${pulled.host} since): pulled again` : `pulled session ${claim.sessionId} from the team store`;
  const where = pulled.movedFrom ? `; it runs in ${cwd} (it ran in ${pulled.movedFrom}${pulled.replaced ? '' : ` on ${pulled.host}`})` : `; it runs in ${cwd}`;
  const name = pulled.droppedName ? `; its name '${pulled.droppedName}' is taken here by another session, so it has none here` : '';
  ctx.stderr.write(terminalText(`acode: ${how} ${claim.target.shown} (${plural(pulled.events, 'event')}, ${plural(pulled.blobs, 'snapshot')}${pulled.replaced ? '' : `, last pushed by ${pulled.host}`})${where}${name}\n`));
}

/** A session this home lacks: its lease taken in the store, then pulled here whole (exit 16 naming the host that holds it). */
export async function pullForResume(ctx: CommandContext, repository: SessionRepository, target: RemoteTarget, typed: string, cwdFlag: string | undefined, timeoutMs: number): Promise<RemoteClaim> {
  const { claimForResume } = await import('../store/remote/remote-claim.js');
  const claim = await claimForResume({ home: repository.home, repository, target, session: { typed }, placeIn: folderChooser(ctx, cwdFlag), timeoutMs });
  try {
    announcePull(ctx, claim, (await repository.open(claim.sessionId)).record.cwd);
  } catch (error) {
    await claim.release();
    throw error;
  }
  return claim;
}

/**
 * A session of this home: pushed, then its lease taken in the store (exit 16 naming the host while
 * another live process holds it); pulled again when the store holds more of it. A store that
 * cannot be reached (or used) stops no resume (FR-048): it is said, and the resume runs on this
 * home's lock alone — the run's push takes the lease once the store answers.
 */
export async function claimHere(ctx: CommandContext, repository: SessionRepository, target: RemoteTarget, id: string, timeoutMs: number): Promise<RemoteClaim | undefined> {
  const { claimForResume } = await import('../store/remote/remote-claim.js');
  let claim: RemoteClaim;
  try {
    claim = await claimForResume({ home: repository.home, repository, target, session: { local: id }, placeIn: () => '', timeoutMs });
  } catch (error) {
    // A refusal (held elsewhere, a row that cannot be pulled) stops the resume; the store's own trouble does not.
    const sqlState = (error as { code?: unknown }).code;
    const storeTrouble = isAcodeError(error) ? error.code === undefined : typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState);
    if (!storeTrouble) throw error;
    const { failureReason } = await import('../store/remote/remote-client.js');
    const pending = await pendingHere(repository, target, id);
    ctx.stderr.write(terminalText(`acode: sync: DEGRADED — ${plural(pending, 'event')} pending · ${failureReason(target, error)}; resuming on this home's lock alone (the run takes the team store's lease once it answers)\n`));
    return undefined;
  }
  try {
    announcePull(ctx, claim, (await repository.open(id)).record.cwd);
  } catch (error) {
    await claim.release();
    throw error;
  }
  return claim;
}

/** The session's events not yet in the store, from local files alone (no connection). */
export async function pendingHere(repository: SessionRepository, target: RemoteTarget, id: string): Promise<number> {
  const { readOutbox } = await import('../store/remote/session-outbox.js');
  try {
    return readOutbox(join(repository.home, 'sessions', id), target.shown).pendingCount;
  } catch {
    return 0;
  }
}
