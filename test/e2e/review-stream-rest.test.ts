import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Hostile review of the session that moved model calls onto node:http and made streams rest
 * between reads: each test is a defect it found, red before its fix.
 */

const fixture = openAiServerPerTest();

/** A parallel run of `count` one-step branches, all allowed to run at once. */
function parallelSpec(host: string, count: number): string {
  const branches = Array.from({ length: count }, (_, i) => `      - { id: b${i}, steps: [ { agent: w, input: "Step ${i}: go" } ] }`);
  return ['version: 0', 'name: wide', 'runtime:', '  provider: openai', '  model_id: m', `  host: ${host}`, `  max_parallel: ${count}`, 'agents:', '  w: { prompt: "worker" }', 'pattern:', '  type: parallel', '  config:', '    branches:', ...branches, ''].join('\n');
}

describe('review: many model calls streaming at once', () => {
  it('a run with 11 branches streaming at once writes no Node warning to the terminal (each call adds an abort listener to the run’s one signal)', async () => {
    const { server, baseUrl } = fixture.current();
    // Every call waits before it answers, so all 11 are in flight together.
    server.latencyMs = 200;
    server.streamDelayMs = 5;
    server.streamPieceChars = 4;
    server.handler = () => ({ kind: 'answer', text: 'an answer in a few small pieces' });
    const cwd = tempDir();
    writeFileSync(join(cwd, 'spec.yaml'), parallelSpec(baseUrl, 11));
    const result = await runCli(['run', 'spec.yaml', '--stream'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-test-review-0123456789abcdef' } });
    expect(result.code, result.stderr).toBe(0);
    // With fetch (before this session) 12 calls on one signal printed nothing; node:http's request
    // keeps a listener on the signal per call, and the 11th trips MaxListenersExceededWarning — on
    // stderr, which in a terminal is written across the live run view.
    expect(result.stderr).not.toContain('MaxListenersExceededWarning');
  });
});

describe('review: the key as the environment holds it', () => {
  it('an API key whose value ends in a newline (a secret file put in the environment) is sent without it, as fetch sent it: the run completes', async () => {
    const { server, baseUrl } = fixture.current();
    const cwd = tempDir();
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'openai', host: baseUrl }));
    // `kubectl create secret --from-file`, `KEY=$(cat file)` in some shells, a key file saved on
    // Windows: the value ends in "\n" or "\r\n". fetch trimmed header values (the Fetch standard's
    // normalize); node:http refuses the header (ERR_INVALID_CHAR) before anything is sent, and acode
    // reports it as "cannot reach … check runtime.host and that the server is running", retryable.
    const result = await runCli(['run', 'spec.yaml', '--no-auto-resume'], { cwd, env: { ACODE_HOME: join(cwd, 'home'), OPENAI_API_KEY: 'sk-test-review-0123456789abcdef\n' } });
    expect(result.stderr).not.toContain('ERR_INVALID_CHAR');
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test-review-0123456789abcdef');
  });
});
