import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, statSync, writeSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { writeFileDurable } from '../../store/durable-file.js';
import { sha256 } from '../blob-store.js';
import type { ToolRunContext } from './tool-runner.js';

/**
 * Writes a file the crash-safe way: snapshot the prior content (blob), journal the intent
 * (before/after hashes) durably, then write atomically and journal that it was applied. A file
 * that already holds the intended content is not written again.
 */
export function writeWithIntent(target: string, content: Buffer, callId: string, ctx: Pick<ToolRunContext, 'step' | 'attempt' | 'cwd' | 'blobs' | 'emit' | 'crashAfterBytes'>): string {
  const before = existsSync(target) ? readFileSync(target) : null;
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
  mkdirSync(dirname(target), { recursive: true });
  if (ctx.crashAfterBytes !== undefined) tornWriteThenDie(target, content, ctx.crashAfterBytes);
  // Replace the file a symlink points to (not the link), keeping the file's permissions.
  const real = existsSync(target) ? realpathSync(target) : target;
  writeFileDurable(real, content, existsSync(real) ? statSync(real).mode & 0o7777 : 0o666 & ~process.umask());
  ctx.emit({ type: 'file_write_applied', step: ctx.step, call_id: callId, path: target, hash: afterHash, blob: afterBlob, already: false });
  return `wrote ${shown} (${content.length} bytes)`;
}

/** The scripted `crash during file_write` fault: an in-place writer killed after `bytes` bytes. */
function tornWriteThenDie(target: string, content: Buffer, bytes: number): never {
  const fd = openSync(target, 'w');
  writeSync(fd, content.subarray(0, Math.min(bytes, content.length)));
  fsyncSync(fd);
  closeSync(fd);
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL did not stop the process');
}
