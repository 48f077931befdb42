import { createHash } from 'node:crypto';

/** Content-addressed snapshots of files the session read or wrote (sha256 hex → bytes). */
export interface BlobStore {
  /** Stores `content` durably (once per distinct content) and returns its hash. */
  put(content: Uint8Array): string;
  get(hash: string): Buffer;
}

export function sha256(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** For --no-save-session: snapshots live as long as the process. */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, Buffer>();

  put(content: Uint8Array): string {
    const hash = sha256(content);
    this.blobs.set(hash, Buffer.from(content));
    return hash;
  }

  get(hash: string): Buffer {
    const blob = this.blobs.get(hash);
    if (!blob) throw new Error(`no blob ${hash}`);
    return blob;
  }
}
