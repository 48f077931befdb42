import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { makeFolders } from '../engine/make-folders.js';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { fsyncDirectory, writeAll } from './durable-file.js';
import { processAlive, processStart } from './process-liveness.js';

/** A claim file's text: `<id> <pid> <process start> <host> <created ms>` (claims of older acode hold only `<id> <pid>`). */
interface Claim {
  text: string;
  /** When the claim file last changed. */
  mtimeMs: number;
  id: string;
  pid: number;
  start?: string;
  host?: string;
  createdMs?: number;
}

/** Creating a session's folder takes milliseconds: a claim older than this without its folder was abandoned. */
const creationBoundMs = 60_000;
/** Taking over a stale claim takes milliseconds: a takeover guard older than this was left by a taker that died. */
const guardBoundMs = 10_000;

const ownClaim = (id: string) => `${id} ${process.pid} ${processStart(process.pid) ?? '-'} ${hostname()} ${Date.now()}\n`;

/**
 * Session names, unique per ACODE_HOME: `names/<name>` holds the id of the session that has it,
 * and who created it (pid, process start time, host, when). A claim is written whole and linked to
 * the name before the session's folder exists (link fails when the name exists, as O_EXCL does), so
 * of two `acode run --name x` at once exactly one gets the name; a
 * lookup reads one small file, whatever the number of sessions.
 *
 * A claim whose session folder exists owns the name. One without a folder stands only while its
 * creator may still be creating it: the same process (same host, pid and start time — a recycled
 * pid is not its creator) still runs and the claim is younger than creationBoundMs. Any other
 * claim — its session deleted by an older acode or by hand, its creator killed before the folder
 * was renamed into place — is stale, and the next claim of that name takes it over.
 */
export class SessionNames {
  readonly dir: string;

  constructor(
    home: string,
    private readonly sessionExists: (id: string) => boolean,
  ) {
    this.dir = join(home, 'names');
  }

  private read(name: string): Claim | undefined {
    let text: string;
    let mtimeMs: number;
    try {
      const path = join(this.dir, name);
      mtimeMs = statSync(path).mtimeMs;
      text = readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
    const [id = '', pid = '0', start, host, created] = text.trim().split(' ');
    return { text, mtimeMs, id, pid: Number(pid), start: start === '-' ? undefined : start, host, createdMs: created === undefined ? undefined : Number(created) };
  }

  /** Whether a claim with no session folder is still being turned into its session. */
  private creating(claim: Claim, now = Date.now()): boolean {
    // Half-written (an older acode wrote claims in place): its writer may be at it still.
    if (!claim.text.endsWith('\n')) return now - claim.mtimeMs <= creationBoundMs;
    // An older acode's claim does not say who made it, so no creator can be shown to be at work.
    if (claim.host === undefined || claim.createdMs === undefined || !Number.isFinite(claim.createdMs)) return false;
    if (now - claim.createdMs > creationBoundMs) return false;
    // Another host's processes cannot be seen: its claim stands for the bound alone.
    if (claim.host !== hostname()) return true;
    if (claim.pid === process.pid || !processAlive(claim.pid)) return false;
    const start = processStart(claim.pid);
    return claim.start === undefined || start === null || start === claim.start;
  }

  /** Gives `name` to session `id`; an AcodeError (exit 2) naming the holder when another session has it. */
  claim(name: string, id: string): void {
    makeFolders(this.dir, 0o700);
    // The claim is written whole beside the name, then linked to it: link, like O_EXCL, fails if the
    // name exists, and a claim never shows half-written (an empty claim read as an older acode's
    // would be taken over as stale: two runs at once both got the name).
    const whole = join(this.dir, `.${name}.${process.pid}.${randomUUID()}.claim`);
    const fd = openSync(whole, 'wx', 0o600);
    try {
      try {
        writeAll(fd, Buffer.from(ownClaim(id)));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      this.linkClaim(name, whole);
    } finally {
      // Linked or not, written or not (a full disk): the name holds the claim, this file is done.
      unlinkSync(whole);
    }
    fsyncDirectory(this.dir);
  }

  private linkClaim(name: string, whole: string): void {
    const path = join(this.dir, name);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(whole, path);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = this.read(name);
        if (holder && this.sessionExists(holder.id)) {
          throw new AcodeError(`the name '${name}' is taken by session ${holder.id}; choose another --name, or delete that session ('acode sessions delete ${name}')`, ExitCode.usage);
        }
        if (holder && this.creating(holder)) {
          const by = holder.text.endsWith('\n') ? `session ${holder.id}, which process ${holder.pid} is creating now` : 'a session another acode is creating now';
          throw new AcodeError(`the name '${name}' is being given to ${by}; choose another --name`, ExitCode.usage);
        }
        // A stale claim: free it and try again (a racer may win it).
        if (holder) this.unlinkIfStill(name, holder);
      }
    }
    throw new AcodeError(`the name '${name}' was taken while this session was being created; choose another --name`, ExitCode.usage);
  }

  /**
   * Removes `names/<name>` if it still holds exactly `claim`. Every remover takes a guard file first,
   * so none can read a stale claim, lose the race to one who replaces it with a fresh claim, and
   * then unlink that fresh one. Creators never unlink: O_EXCL alone keeps them apart.
   */
  private unlinkIfStill(name: string, claim: Claim): void {
    const guard = join(this.dir, `.${name}.takeover`);
    try {
      closeSync(openSync(guard, 'wx', 0o600));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Another remover is at work (and the caller tries again), or one died holding the guard.
      try {
        if (Date.now() - statSync(guard).mtimeMs > guardBoundMs) unlinkSync(guard);
      } catch {
        // Gone already: the caller's next attempt decides.
      }
      return;
    }
    try {
      if (this.read(name)?.text !== claim.text) return;
      try {
        unlinkSync(join(this.dir, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    } finally {
      unlinkSync(guard);
    }
  }

  /** Frees `name` if session `id` holds it (deleting a session frees its name). */
  release(name: string, id: string): void {
    const claim = this.read(name);
    if (claim?.id === id) this.unlinkIfStill(name, claim);
  }

  /** The id of the session named `name`, if one is. */
  lookup(name: string): string | undefined {
    const claim = this.read(name);
    return claim && this.sessionExists(claim.id) ? claim.id : undefined;
  }

  /** Every name a session has, for "did you mean" (read only when a name was not found). */
  all(): string[] {
    return existsSync(this.dir) ? readdirSync(this.dir).filter((name) => !name.startsWith('.') && this.lookup(name) !== undefined) : [];
  }
}
