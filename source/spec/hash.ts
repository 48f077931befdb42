import { createHash } from 'node:crypto';

/** sha256 hex of text: spec snapshots and file contents are compared by it. */
export function hashText(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}
