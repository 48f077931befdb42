import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { leakedPieces, requestKey } from '../helpers/header-echo.js';
import { openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const key = 'sk-proj-CanaryQ7vX2mLp9RzT4wKd8NfB3hYc6JsE0aW1uIo';
const server = openAiServerPerTest();

const base64 = (text: string) => Buffer.from(text).toString('base64');

/** The key's base64 characters that depend on the key alone, in each alignment a longer text can give it. */
const encodedCores = ['', 'u:', 'us:'].map((prefix) => base64(`${prefix}${key}`).slice(prefix ? 4 : 0, -4));

describe('a server that echoes the key base64- or URL-encoded in its error', () => {
  it('never puts 8 characters of those forms in events.jsonl, session.json, the index or stderr', async () => {
    server.current().server.handler = (request) => {
      const sent = requestKey(request.headers);
      const message = [
        `invalid credentials ${base64(sent)}`,
        `basic: ${base64(`user:${sent}`)}`,
        `url-safe: ${base64(sent).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')}`,
        `as sent in the query: ${encodeURIComponent(sent)}`,
      ].join('\n');
      return { kind: 'error', status: 401, body: { error: { message, type: 'invalid_api_key', code: 'invalid_api_key' } } };
    };
    const cwd = tempDir('acode-echo-');
    const home = join(cwd, 'home');
    writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'openai', host: server.current().baseUrl }));
    const run = await runCli(['run', 'spec.yaml', '--no-auto-resume'], { cwd, env: { ACODE_HOME: home, OPENAI_API_KEY: key } });

    expect(server.current().server.requests.map((r) => requestKey(r.headers))).toContain(key);
    expect(run.stderr).toContain('HTTP 401');
    expect(run.stderr).toContain('invalid credentials [REDACTED]');
    const files = readdirSync(home, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    expect(files.some((file) => file.endsWith('events.jsonl'))).toBe(true);
    for (const [where, text] of [...files.map((file) => [file, readFileSync(file, 'latin1')] as const), ['stderr', run.stderr] as const, ['stdout', run.stdout] as const]) {
      for (const form of [...encodedCores, encodeURIComponent(key)]) expect(leakedPieces(text, form), `${where}: ${form}`).toEqual([]);
    }
  });
});
