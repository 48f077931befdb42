import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a model server on this machine that is not running', () => {
  it('pauses the session within a second or two (one quick retry), naming runtime.host for Ollama', async () => {
    const cwd = tempDir();
    const home = join(cwd, 'home');
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 2, provider: 'ollama', host: `http://127.0.0.1:${await closedPort()}` }));
    const started = Date.now();
    const result = await runCli(['run', 'spec.yaml'], { cwd, env: { ACODE_HOME: home, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    const seconds = (Date.now() - started) / 1000;
    expect(result.code).toBe(1);
    expect(seconds).toBeLessThan(5); // the usual backoff (5 retries) takes 21–28 s
    const lines = result.stderr.split('\n');
    expect(lines.filter((l) => l.startsWith('◷'))).toEqual([expect.stringMatching(/^◷ step 1\/2 worker: provider failed \(cannot reach .* \(connection refused, ECONNREFUSED\); .*\); retry 1\/1 in 1 s$/)]);
    expect(result.stderr).toMatch(/⏸ paused: step 1: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(connection refused, ECONNREFUSED\); is Ollama running \('ollama serve'\)\? runtime\.host in the spec says where it listens; gave up after 1 quick retry/);
    expect(result.stderr).not.toContain('OPENAI_BASE_URL');
    expect(lines).toContain('▶ step 1/2 worker (retry 1/1)'); // numbered as its countdown, not "attempt 2"
    expect(result.stderr).not.toMatch(/attempt \d/);
    expect(parseAllSessionFiles(home)[0]!.checkpoint).toMatchObject({ status: 'paused', stop_reason: 'provider_error', steps_done: 0 });
  });
});
