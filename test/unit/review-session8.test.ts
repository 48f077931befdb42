import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../source/engine/stop-errors.js';
import { openResponse, type JsonPost } from '../../source/providers/post-json.js';
import stringWidthAsPublished from 'string-width';
import { SessionNames } from '../../source/store/session-names.js';
import stringWidth from '../../source/ui/text-width.js';
import { smallTmpfs, tmpfsUnavailable } from '../helpers/small-tmpfs.js';
import { answeringServers } from '../helpers/answering-server.js';

/**
 * Hostile review of session 8 (the shared beat, resting streams, the bundle's Output and string
 * width, the stream tail as one Text, claims written whole and linked): each test is a defect it
 * found, red before its fix.
 */

/** A real HTTP server on 127.0.0.1 answering every request with `handler` (closed after each test). */
const listen = answeringServers();

const post = (url: string): JsonPost => ({ url, headers: {}, body: { stream: true }, signal: new AbortController().signal, provider: 'openai', endpoint: url, unreachableHint: 'is the server running?' });

describe('review: header values node:http cannot send', () => {
  // A key pasted from a web page or chat often carries a zero-width space, a no-break space's
  // cousin or an escape byte. node:http refuses any control character but tab and any character
  // past U+00FF (ERR_INVALID_CHAR); post-json.ts names the header only for \0, \r and \n.
  for (const [what, key] of [
    ['a zero-width space', 'sk-abcdef0123456789\u200b'],
    ['an escape byte', 'sk-abcdef0123\u001b456789'],
    ['a vertical tab at its end', 'sk-abcdef0123456789\u000b'],
  ] as const) {
    it(`a key holding ${what} is refused before anything is sent, naming the header, not retried as a server that cannot be reached`, async () => {
      let requests = 0;
      const base = await listen((res) => {
        requests++;
        res.end('{}');
      });
      const error = await openResponse({ ...post(`${base}/v1/chat/completions`), headers: { authorization: `Bearer ${key}` } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(requests).toBe(0);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).message).toContain('authorization header');
      expect((error as ProviderError).message).not.toMatch(/cannot reach|server running/);
      expect((error as ProviderError).retryable).toBe(false);
    });
  }
});

describe.skipIf(tmpfsUnavailable !== null)('review: a name claimed on a full disk (a real tmpfs)', () => {
  it('a claim that cannot be written leaves no temp claim file behind in names/', () => {
    const home = smallTmpfs('256k');
    const names = new SessionNames(home, () => false);
    mkdirSync(names.dir, { recursive: true });
    // Fill the disk: the temp claim file can be created (an inode), but not written.
    const filler = openSync(join(home, 'filler'), 'w');
    try {
      for (;;) writeSync(filler, Buffer.alloc(4096));
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(filler);
    }
    expect(() => names.claim('nightly', 'aaaaaaaaaaaaaaaa')).toThrow();
    rmSync(join(home, 'filler'));
    // Nothing ever removes a `.nightly.<pid>.<uuid>.claim` left here: each failed run adds one.
    expect(readdirSync(names.dir)).toEqual([]);
  });
});

describe('review: the build\'s string width on options string-width reads its own way', () => {
  // string-width 8 takes `ambiguousIsNarrow = true` as a destructuring default: only undefined means
  // narrow, so null or 0 measure ambiguous characters wide; text-width.ts treats only `false` so.
  it('measures with ambiguousIsNarrow: null or 0 as string-width 8 does (ambiguous characters wide)', () => {
    for (const ambiguousIsNarrow of [null, 0] as unknown as boolean[]) {
      expect(stringWidth('○·', { ambiguousIsNarrow })).toBe(stringWidthAsPublished('○·', { ambiguousIsNarrow }));
    }
  });
});
