import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type BlobStore } from '../engine/blob-store.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { writeFileDurable } from './durable-file.js';

/** A snapshot whose bytes no longer hash to its name. */
export class DamagedBlobError extends AcodeError {
  constructor(readonly path: string) {
    super(`the snapshot ${path} is damaged: its content no longer matches the sha256 it is named by; restore it from a backup, or start a new session from the completed steps with 'acode fork'`, ExitCode.failure, 'ACODE-RESUME-005');
  }
}

/** `sessions/<id>/blobs/<sha256>`: written once, crash-atomically, before any event names them. */
export class FileBlobStore implements BlobStore {
  constructor(
    private readonly dir: string,
    /** The session the blobs belong to: named in temp files, so a resume can remove those a crash left. */
    private readonly owner?: string,
  ) {}

  put(content: Uint8Array): string {
    const hash = sha256(content);
    const path = join(this.dir, hash);
    if (!existsSync(path)) {
      // Not recursive: if the session folder was deleted, fail instead of recreating half a session.
      if (!existsSync(this.dir)) mkdirSync(this.dir, { mode: 0o700 });
      writeFileDurable(path, content, 0o600, this.owner);
    }
    return hash;
  }

  /**
   * Whether the snapshot `hash` is on disk as it was written: its name is the sha256 of its bytes,
   * so bytes that no longer hash to it (a truncated file, a flipped bit, a hand edit) are damaged.
   */
  state(hash: string): 'intact' | 'missing' | 'damaged' {
    let content: Buffer;
    try {
      content = readFileSync(this.pathOf(hash));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
      throw error;
    }
    return sha256(content) === hash ? 'intact' : 'damaged';
  }

  /** Where the snapshot `hash` is (or would be) kept. */
  pathOf(hash: string): string {
    return join(this.dir, hash);
  }

  /** The snapshot's bytes, checked against its name: damaged ones are never replayed to a model or rolled back onto a file. */
  get(hash: string): Buffer {
    const content = readFileSync(this.pathOf(hash));
    if (sha256(content) !== hash) throw new DamagedBlobError(this.pathOf(hash));
    return content;
  }
}
