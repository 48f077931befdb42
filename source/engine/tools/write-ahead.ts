import { closeSync, fsyncSync, writeSync } from 'node:fs';
import { tempFileName } from '../../store/durable-file.js';
import { sha256 } from '../blob-store.js';
import { ensureStillOwned } from '../journal.js';
import { confinement, openInPlace, openWritePlace, readFileBeneath, replaceBeneath, type WritePlace } from './beneath.js';
import type { ToolRunContext } from './tool-runner.js';
import { writeResultText } from './write-result.js';

/**
 * Writes a file the crash-safe way: snapshot the prior content (blob), journal the intent
 * (before/after hashes) durably, then write atomically and journal that it was applied. A file
 * that already holds the intended content is not written again.
 */
export function writeWithIntent(target: string, content: Buffer, callId: string, ctx: Pick<ToolRunContext, 'step' | 'attempt' | 'cwd' | 'extraRoots' | 'blobs' | 'emit' | 'crash' | 'sessionId' | 'stillOwned'>): string {
  // Every open below is checked where it really lands: a folder swapped for a link mid-write cannot lead outside.
  const where = confinement(ctx.cwd, ctx.extraRoots);
  const before = readFileBeneath(target, where);
  const afterHash = sha256(content);
  if (before && sha256(before) === afterHash) {
    ctx.emit({ type: 'file_write_applied', step: ctx.step, call_id: callId, path: target, hash: afterHash, blob: ctx.blobs.put(content), already: true });
    return writeResultText(ctx.cwd, target, content.length, true);
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
    // A torn write: an in-place writer killed mid-write.
    if (ctx.crash?.at === 'torn') tornWriteThenDie(place, content, ctx.crash.after_bytes);
    replaceBeneath(place, content, where, {
      // Named for the session, so a resume after a kill finds and removes exactly its own.
      tempName: tempFileName(place.name, ctx.sessionId),
      beforeRename: () => {
        // The scripted fault: the atomic writer killed with its temp file whole, before the rename.
        if (ctx.crash?.at === 'before_rename') die();
        // A process that lost the session to a takeover while it was frozen writes nothing more.
        ensureStillOwned(ctx.stillOwned);
      },
    });
  } finally {
    closeSync(place.dir.fd);
  }
  ctx.emit({ type: 'file_write_applied', step: ctx.step, call_id: callId, path: target, hash: afterHash, blob: afterBlob, already: false });
  return writeResultText(ctx.cwd, target, content.length, false);
}

/** The scripted `crash during file_write` fault: an in-place writer killed after `bytes` bytes. */
function tornWriteThenDie(place: WritePlace, content: Buffer, bytes: number): never {
  const fd = openInPlace(place);
  writeSync(fd, content.subarray(0, Math.min(bytes, content.length)));
  fsyncSync(fd);
  closeSync(fd);
  die();
}

function die(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL did not stop the process');
}
