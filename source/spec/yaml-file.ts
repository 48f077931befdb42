import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { isUtf8 } from 'node:buffer';

/**
 * Reading a YAML file the user names (a spec, an agent file it refers to, a config): a named pipe
 * given as the spec blocked `validate` and `run` forever, a 2 GB file was read whole, and bytes
 * that are not text reached the YAML parser. Each is refused here, before parsing, saying why.
 */

/** The largest YAML file acode reads: specs are a few KiB; past this is a mistake or an attack. */
export const yamlFileLimit = 4 * 1024 * 1024;

function kindOf(stats: Stats, noun: string): string {
  if (stats.isDirectory()) return `a folder; give the ${noun} in it`;
  if (stats.isFIFO()) return 'a named pipe (FIFO), not a file: reading it would wait for a writer; give a file';
  if (stats.isSocket()) return 'a socket, not a file; give a file';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device, not a file; give a file';
  return 'not a regular file; give a file';
}

/** Where byte `offset` is, for messages: "byte 1234 (line 5, column 3)", columns counted in bytes. */
function bytePosition(bytes: Buffer, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let at = bytes.indexOf(10); at >= 0 && at < offset; at = bytes.indexOf(10, at + 1)) {
    line += 1;
    lineStart = at + 1;
  }
  return `byte ${offset} (line ${line}, column ${offset - lineStart + 1})`;
}

/** The offset of the first byte that does not start a valid UTF-8 sequence (RFC 3629), or -1. */
function invalidUtf8At(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    const follow = lead < 0x80 ? 0 : lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : -1;
    if (follow < 0) return i;
    // Overlong forms, surrogates and code points past U+10FFFF show in the second byte.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= follow; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += follow + 1;
  }
  return -1;
}

/** Why the bytes are not text a YAML file may hold, or undefined. */
function notText(bytes: Buffer): string | undefined {
  const nul = bytes.indexOf(0);
  if (nul >= 0) return `it holds a NUL byte at ${bytePosition(bytes, nul)}: it is not a text file, or it is damaged`;
  if (isUtf8(bytes)) return undefined;
  return `it is not valid UTF-8 at ${bytePosition(bytes, invalidUtf8At(bytes))}: save it as UTF-8`;
}

/** Why a file's error code stops it being read, in words. */
function openFailure(error: NodeJS.ErrnoException, noun: string): string {
  if (error.code === 'ENOENT') return 'no such file; check the path';
  if (error.code === 'EISDIR') return `it is a folder; give the ${noun} in it`;
  if (error.code === 'EACCES' || error.code === 'EPERM') return `no permission to read it (${error.code})`;
  return error.message;
}

/**
 * A YAML file's text, or why it cannot be used: not there, not a regular file (checked on the
 * opened file, opened without blocking, so a FIFO is never waited on), past yamlFileLimit, or
 * not UTF-8 text. Never reads more than the limit. `noun` names what it should be ("spec file").
 */
export function readYamlFile(file: string, noun = 'file'): { text: string } | { reason: string; code?: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { reason: openFailure(error as NodeJS.ErrnoException, noun), code: (error as NodeJS.ErrnoException).code };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { reason: `it is ${kindOf(stats, noun)}` };
    if (stats.size > yamlFileLimit) return { reason: `it is ${stats.size.toLocaleString('en-US')} bytes, past the limit of 4 MiB for a YAML file acode reads; a spec this large is a mistake (keep long texts short, or in the files the agents read)` };
    // One byte past the limit shows a file that grew after fstat.
    const bytes = Buffer.alloc(Math.min(stats.size, yamlFileLimit) + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < bytes.length; length += read) read = readSync(fd, bytes, length, bytes.length - length, null);
    if (length > yamlFileLimit) return { reason: 'it grew past the limit of 4 MiB for a YAML file acode reads while being read' };
    const content = bytes.subarray(0, length);
    const problem = notText(content);
    return problem ? { reason: problem } : { text: content.toString('utf8') };
  } catch (error) {
    return { reason: openFailure(error as NodeJS.ErrnoException, noun) };
  } finally {
    closeSync(fd);
  }
}
