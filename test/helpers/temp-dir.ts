import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];

/**
 * A fresh directory under the OS temp dir, removed after the test. Not `acode-test-`: the tests'
 * API keys are `sk-test-…`, and a random name starting `no` made `-test-no` a piece of the
 * registered `sk-test-not-used` — redacted in messages, and in the paths a session's log holds.
 */
export function tempDir(prefix = 'acode-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
