import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type BlobStore } from '../engine/blob-store.js';
import { writeFileDurable } from './durable-file.js';

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

  /** Whether the snapshot `hash` is on disk. */
  has(hash: string): boolean {
    return existsSync(this.pathOf(hash));
  }

  /** Where the snapshot `hash` is (or would be) kept. */
  pathOf(hash: string): string {
    return join(this.dir, hash);
  }

  get(hash: string): Buffer {
    return readFileSync(join(this.dir, hash));
  }
}
