import { describe, expect, it } from 'vitest';
import { isLocalHost } from '../../source/providers/network-failure.js';

/** Review of the see-and-steer slices (#14) by a hostile user: each test is a defect it found, red before its fix. */
describe('hostile review of #14: which hosts are local', () => {
  // FIXED: source/providers/network-failure.ts (isLocalHost): WHATWG URL writes an IPv4-mapped IPv6 address in hex
  // ('[::ffff:127.0.0.1]' is '::ffff:7f00:1'); isLocalHost now reads the hex form as well as the dotted one, so a refused local
  // server behind a mapped address pauses after one quick retry.
  it('an IPv4-mapped IPv6 loopback or private address is local', () => {
    expect(isLocalHost('http://[::ffff:127.0.0.1]:11434')).toBe(true);
    expect(isLocalHost('http://[::ffff:192.168.1.5]:11434/v1')).toBe(true);
  });

  // FIXED: source/providers/network-failure.ts (isLocalHost): 0.0.0.0 — what `OLLAMA_HOST=0.0.0.0 ollama serve` prints and
  // people copy into runtime.host — connects to this machine and is now judged local (as is [::]), so a refused connection
  // fails fast instead of waiting out the full backoff.
  it('0.0.0.0 (this machine, as a server listening on all interfaces prints it) is local', () => {
    expect(isLocalHost('http://0.0.0.0:11434')).toBe(true);
  });
});
