import { closeSync, fsyncSync, writeSync } from 'node:fs';
import { relative } from 'node:path';
import { tempFileName } from '../../store/durable-file.js';
import { sha256 } from '../blob-store.js';
import { confinement, openInPlace, openWritePlace, readFileBeneath, replaceBeneath, type WritePlace } from './beneath.js';
import type { ToolRunContext } from './tool-runner.js';

/**
 * Writes a file the crash-safe way: snapshot the prior content (blob), journal the intent
 * (before/after hashes) durably, then write atomically and journal that it was applied. A file
 * that already holds the intended content is not written again.
 */
export function writeWithIntent(target: string, content: Buffer, callId: string, ctx: Pick<ToolRunContext, 'step' | 'attempt' | 'cwd' | 'extraRoots' | 'blobs' | 'emit' | 'crashAfterBytes'>): string {
  // Every open below is checked where it really lands: a folder swapped for a link mid-write cannot lead outside.
  const where = confinement(ctx.cwd, ctx.extraRoots);
  const before = readFileBeneath(target, where);
  const afterHash = sha256(content);
  const shown = relative(ctx.cwd, target) || target;
  if (before && sha256(before) === afterHash) {
    ctx.emit({ type: 'file_write_applied', step: ctx.step, call_id: callId, path: target, hash: afterHash, blob: ctx.blobs.put(content), already: true });
    return `${shown} already has this content (${content.length} bytes); not written again`;
  }
  const afterBlob = ctx.blobs.put(content);
  const beforeBlob = before ? ctx.blobs.put(before) : null;
  ctx.emit({
    type: 'file_write_intended',
    call_id: callId,
    step: ctx.step,
    attempt: ctx.attempt,
    path: target,
    before_hash: before ? sha256(before) : null,
    before_blob: beforeBlob,
    after_hash: afterHash,
    after_blob: afterBlob,
    bytes: content.length,
  });
  // Makes missing folders; a symlink at the target is written through (the file it points to is
  // replaced, keeping the link and the file's permissions) only when it points inside.
  const place = openWritePlace(target, where);
  try {
    if (ctx.crashAfterBytes !== undefined) tornWriteThenDie(place, content, ctx.crashAfterBytes);
    // A check that this process still owns the session belongs in beforeRename: the last moment to refuse.
    replaceBeneath(place, content, where, { tempName: tempFileName(place.name) });
  } finally {
    closeSync(place.dir.fd);
  }
  ctx.emit({ type: 'file_write_applied', step: ctx.step, call_id: callId, path: target, hash: afterHash, blob: afterBlob, already: false });
  return `wrote ${shown} (${content.length} bytes)`;
}

/** The scripted `crash during file_write` fault: an in-place writer killed after `bytes` bytes. */
function tornWriteThenDie(place: WritePlace, content: Buffer, bytes: number): never {
  const fd = openInPlace(place);
  writeSync(fd, content.subarray(0, Math.min(bytes, content.length)));
  fsyncSync(fd);
  closeSync(fd);
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL did not stop the process');
}
