import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { tempPathFor, writeFileDurable } from '../../store/durable-file.js';
import { sha256 } from '../blob-store.js';
import type { ToolRunContext } from './tool-runner.js';
import { writeResultText } from './write-result.js';

/**
 * Writes a file the crash-safe way: snapshot the prior content (blob), journal the intent
 * (before/after hashes) durably, then write atomically and journal that it was applied. A file
 * that already holds the intended content is not written again.
 */
export function writeWithIntent(target: string, content: Buffer, callId: string, ctx: Pick<ToolRunContext, 'step' | 'attempt' | 'cwd' | 'blobs' | 'emit' | 'crash' | 'sessionId'>): string {
  const before = existsSync(target) ? readFileSync(target) : null;
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
  mkdirSync(dirname(target), { recursive: true });
  // A torn write: an in-place writer killed mid-write.
  if (ctx.crash?.at === 'torn') writeThenDie(target, content, ctx.crash.after_bytes);
  // Replace the file a symlink points to (not the link), keeping the file's permissions.
  const real = existsSync(target) ? realpathSync(target) : target;
  // The atomic writer killed with its temp file whole, before the rename.
  if (ctx.crash?.at === 'before_rename') writeThenDie(tempPathFor(real, ctx.sessionId), content, content.length);
  writeFileDurable(real, content, existsSync(real) ? statSync(real).mode & 0o7777 : 0o666 & ~process.umask(), ctx.sessionId);
  ctx.emit({ type: 'file_write_applied', step: ctx.step, call_id: callId, path: target, hash: afterHash, blob: afterBlob, already: false });
  return writeResultText(ctx.cwd, target, content.length, false);
}

/** Scripted faults: writes `bytes` of `content` to `path` in place, durably, and dies as with kill -9. */
function writeThenDie(path: string, content: Buffer, bytes: number): never {
  const fd = openSync(path, 'w');
  writeSync(fd, content.subarray(0, Math.min(bytes, content.length)));
  fsyncSync(fd);
  closeSync(fd);
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL did not stop the process');
}
