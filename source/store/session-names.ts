import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { fsyncDirectory, writeAll } from './durable-file.js';
import { processAlive } from './process-liveness.js';

interface Claim {
  id: string;
  pid: number;
}

/**
 * Session names, unique per ACODE_HOME: `names/<name>` holds the id of the session that has it
 * (and the pid of the process that created it). A claim is made with O_EXCL before the session's
 * folder exists, so of two `acode run --name x` at once exactly one gets the name; a lookup reads
 * one small file, whatever the number of sessions. A claim whose session is gone — deleted by an
 * older acode, or a creator killed before its folder was renamed into place — is free again.
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
    try {
      text = readFileSync(join(this.dir, name), 'utf8');
    } catch {
      return undefined;
    }
    const [id = '', pid = '0'] = text.trim().split(' ');
    return { id, pid: Number(pid) };
  }

  /** Whether a claim still stands: its session exists, or its creator still runs (the folder is not renamed in yet). */
  private live(claim: Claim): boolean {
    return this.sessionExists(claim.id) || (claim.pid !== process.pid && processAlive(claim.pid));
  }

  /** Gives `name` to session `id`; an AcodeError (exit 2) naming the holder when another session has it. */
  claim(name: string, id: string): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, name);
    for (let attempt = 0; attempt < 2; attempt++) {
      let fd: number;
      try {
        fd = openSync(path, 'wx', 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = this.read(name);
        if (holder && this.live(holder)) {
          throw new AcodeError(`the name '${name}' is taken by session ${holder.id}; choose another --name, or delete that session ('acode sessions delete ${name}')`, ExitCode.usage);
        }
        // A stale claim: its session is gone. Free it and try once more (a racer may win it).
        this.unlinkIfStill(name, holder);
        continue;
      }
      try {
        writeAll(fd, Buffer.from(`${id} ${process.pid}\n`));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      fsyncDirectory(this.dir);
      return;
    }
    throw new AcodeError(`the name '${name}' was taken while this session was being created; choose another --name`, ExitCode.usage);
  }

  private unlinkIfStill(name: string, claim: Claim | undefined): void {
    const now = this.read(name);
    if (now?.id !== claim?.id) return;
    try {
      unlinkSync(join(this.dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  /** Frees `name` if session `id` holds it (deleting a session frees its name). */
  release(name: string, id: string): void {
    if (this.read(name)?.id === id) this.unlinkIfStill(name, { id, pid: 0 });
  }

  /** The id of the session named `name`, if one is. */
  lookup(name: string): string | undefined {
    const claim = this.read(name);
    return claim && this.sessionExists(claim.id) ? claim.id : undefined;
  }

  /** Every name held, for "did you mean" (read only when a name was not found). */
  all(): string[] {
    return existsSync(this.dir) ? readdirSync(this.dir).filter((name) => !name.startsWith('.')) : [];
  }
}
