import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { anthropicServerPerTest, type AnthropicTestServer } from '../helpers/anthropic-server.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { headerEcho, leakedPieces, requestKey, type Protocol } from '../helpers/header-echo.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { indexText } from '../helpers/index-files.js';
import { tempDir } from '../helpers/temp-dir.js';

// Canaries shaped like the real keys, so the shape rules and the registered value both have to hold.
const canaries: Record<Protocol, string> = {
  openai: 'sk-proj-CanaryQ7vX2mLp9RzT4wKd8NfB3hYc6JsE0aW1uIo',
  anthropic: 'sk-ant-api03-CanaryZ8M2nQ4rT6vX9bD1fH3jL5pR7tV0yA2cEx',
};
const keyVariable: Record<Protocol, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };

const openai = openAiServerPerTest();
const anthropic = anthropicServerPerTest();
let servers: { openai: OpenAiTestServer; anthropic: AnthropicTestServer };
let baseUrls: Record<Protocol, string>;
beforeEach(() => {
  servers = { openai: openai.current().server, anthropic: anthropic.current().server };
  baseUrls = { openai: openai.current().baseUrl, anthropic: anthropic.current().baseUrl };
});

/** Every server answer for `protocol` is `status` with the request's headers echoed. */
function echoEverything(protocol: Protocol, status: number): void {
  const extra: Record<string, string> = status === 429 ? { 'retry-after': '1' } : {};
  if (protocol === 'openai') servers.openai.handler = (r) => headerEcho(status, r.headers, 'openai', extra);
  else servers.anthropic.handler = (r) => headerEcho(status, r.headers, 'anthropic', extra);
}

function workspace(protocol: Protocol, specExtra = '') {
  const cwd = tempDir('acode-echo-');
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), chainSpec({ steps: 2, provider: protocol, host: baseUrls[protocol] }) + specExtra);
  return { cwd, home, env: { ACODE_HOME: home, [keyVariable[protocol]]: canaries[protocol] } };
}

/** Every file under `dir`, recursively (ACODE_HOME is inside the working directory). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Where any 8 characters of `secret` survive: file path or command output → the pieces found. */
function leaks(cwd: string, outputs: CliResult[], secret: string): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const file of filesUnder(cwd)) {
    const pieces = leakedPieces(readFileSync(file, 'latin1'), secret);
    if (pieces.length) found[file.slice(cwd.length + 1)] = pieces;
  }
  outputs.forEach((output, i) => {
    const pieces = leakedPieces(`${output.stdout}\n${output.stderr}`, secret);
    if (pieces.length) found[`output of command ${i + 1}`] = pieces;
  });
  return found;
}

const sessionId = (run: CliResult) => /session ([0-9a-f]{16})/.exec(run.stderr)?.[1];

describe('a server that echoes the API key in its errors', () => {
  const cases = (['openai', 'anthropic'] as const).flatMap((protocol) => [401, 403, 429, 500].map((status) => [protocol, status] as const));

  it.each(cases)('%s answering %i: no 8 characters of the key reach any file or the terminal', async (protocol, status) => {
    const ws = workspace(protocol);
    echoEverything(protocol, status);
    const run = await runCli(['run', 'spec.yaml', '--no-auto-resume'], ws);

    // The echo really happened: the server saw the key, and its error reached acode's outputs.
    const server = servers[protocol];
    expect(server.requests.map((r) => requestKey(r.headers))).toContain(canaries[protocol]);
    expect(run.stderr).toContain(`HTTP ${status}`);
    expect(run.stderr).toContain('[REDACTED]');
    expect(run.code).not.toBe(0);
    expect(leaks(ws.cwd, [run], canaries[protocol])).toEqual({});
  });

  it.each(['openai', 'anthropic'] as const)('%s: a 429 pauses the session; resume, sessions list/show/history show the message without the key', async (protocol) => {
    const ws = workspace(protocol);
    echoEverything(protocol, 429);
    const run = await runCli(['run', 'spec.yaml', '--no-auto-resume'], ws);
    const id = sessionId(run);
    expect(id, run.stderr).toBeDefined();
    expect(run.stderr).toContain('paused');

    // Resume meets the same echo: it pauses again, writing session.json, the index and its head again.
    const resumed = await runCli(['resume', id!, '--no-auto-resume'], ws);
    expect(resumed.stderr).toContain('HTTP 429');
    const shown = await Promise.all([
      ['sessions', 'list'],
      ['sessions', 'list', '--json'],
      ['sessions', 'show', id!],
      ['sessions', 'show', id!, '--json'],
      ['sessions', 'history', id!],
      ['sessions', 'history', id!, '--json'],
    ].map((args) => runCli(args, ws)));
    for (const output of shown) expect(output.code, output.stderr).toBe(0);
    const show = JSON.parse(shown[3]!.stdout) as { checkpoint: { status: string } };
    expect(show.checkpoint.status).toBe('paused');
    expect(shown[4]!.stdout).toContain('HTTP 429');
    expect(readFileSync(join(ws.home, 'sessions', id!, 'session.json'), 'utf8')).toContain('[REDACTED]');
    expect(indexText(ws.home)).toContain(id);

    expect(leaks(ws.cwd, [run, resumed, ...shown], canaries[protocol])).toEqual({});
  });

  it("keeps a spec's env.secrets out of responses, artifacts and the session files", async () => {
    const token = 'ghp_SpecSecretT0ken4Canary9xYz81QwErTy';
    const ws = workspace('openai', 'env:\n  secrets:\n    - name: GitHub token\n      key: MY_GITHUB_PAT\n      source: env\n');
    // The model's answer quotes the token (say, from a file it was shown): nothing stores or prints it.
    servers.openai.handler = () => ({ kind: 'answer', text: `the token is ${token}, split: ${token.slice(0, 12)}\n${token.slice(12)}` });
    const run = await runCli(['run', 'spec.yaml', '--json'], { ...ws, env: { ...ws.env, MY_GITHUB_PAT: token } });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(ws.cwd, 'artifacts/out/report.md'), 'utf8')).toContain('the token is [REDACTED]');
    expect(leaks(ws.cwd, [run], token)).toEqual({});
  });

  it("keeps a spec's env.secrets out of streamed answers, a paused session's files, its resume and what sessions show", async () => {
    const token = 'ghp_SpecSecretT0ken4Canary9xYz81QwErTy';
    const ws = workspace('openai', 'env:\n  secrets:\n    - name: GitHub token\n      key: MY_GITHUB_PAT\n      source: env\n');
    writeFileSync(join(ws.cwd, 'spec.yaml'), readFileSync(join(ws.cwd, 'spec.yaml'), 'utf8').replace('  max_tokens: 256\n', '  max_tokens: 256\n  budgets: { max_steps: 1 }\n'));
    servers.openai.handler = (r) => ({ kind: 'answer', text: `step ${r.step}: the token is ${token}` });
    const env = { ...ws, env: { ...ws.env, MY_GITHUB_PAT: token } };
    const run = await runCli(['run', 'spec.yaml', '--stream'], env);
    expect(run.code, run.stderr).toBe(1);
    const id = /session ([0-9a-f]{16})/.exec(run.stderr)![1]!;
    const resumed = await runCli(['resume', id, '--stream', '--set', 'runtime.budgets.max_steps=2'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('step 1: the token is [REDACTED]');
    // Read back without the secret in the environment: only what was stored can show.
    const shown = await Promise.all([['sessions', 'show', id], ['sessions', 'show', id, '--step', '1'], ['sessions', 'show', id, '--json'], ['sessions', 'history', id]].map((args) => runCli(args, ws)));
    expect(shown.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(leaks(ws.cwd, [run, resumed, ...shown], token)).toEqual({});
  });

  it('keeps credential-shaped text a model wrote, unregistered, as written: in artifacts, and across a pause and resume', async () => {
    const ws = workspace('openai');
    const code = 'api_key = "changeme123"\nheaders = { Authorization: "Bearer abcdefghijklmnop1234" }';
    let step1Calls = 0;
    // Step 1 is refused once (401 pauses the session with step 0's answer in its checkpoint), then answered.
    servers.openai.handler = (r) => (r.step === 1 && step1Calls++ === 0 ? { kind: 'error', status: 401, body: { error: { message: 'invalid key' } } } : { kind: 'answer', text: `step ${r.step}:\n${code}` });
    const run = await runCli(['run', 'spec.yaml', '--json'], ws);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'paused' });
    const resumed = await runCli(['resume', '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = readFileSync(join(ws.cwd, 'artifacts/out/report.md'), 'utf8');
    expect(report).toContain(`step 0:\n${code}`);
    expect(report).toContain(`step 1:\n${code}`);
    expect(leaks(ws.cwd, [run, resumed], canaries.openai)).toEqual({});
  });
});

describe('a password in the model server URL', () => {
  // FIXED: source/providers/create-provider.ts, source/spec/load-spec.ts (urlWithoutCredentials): validate passed it; run created
  // a session — its copy of the spec keeping the password — and paused on the first call; from OPENAI_BASE_URL the refusal said
  // to take it out of runtime.host.
  it('is refused by validate and run from runtime.host, and by run from OPENAI_BASE_URL, before anything is written, never shown', async () => {
    const password = 'DbPassw0rdXYZ';
    const withCredentials = baseUrls.openai.replace('http://', `http://admin:${password}@`);
    const ws = workspace('openai');
    writeFileSync(join(ws.cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'openai', host: withCredentials }));
    const outputs: CliResult[] = [];
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, 'spec.yaml'], ws);
      outputs.push(result);
      expect(result.code, command).toBe(2);
      expect(result.stderr).toMatch(/spec\.yaml:\d+:\d+: error: runtime\.host holds a user name or password \(http:\/\/127\.0\.0\.1:\d+\/v1 with them removed\)/);
    }
    writeFileSync(join(ws.cwd, 'spec.yaml'), chainSpec({ steps: 1, provider: 'openai' }));
    const fromEnv = await runCli(['run', 'spec.yaml'], { ...ws, env: { ...ws.env, OPENAI_BASE_URL: withCredentials } });
    outputs.push(fromEnv);
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('OPENAI_BASE_URL holds a user name or password');
    expect(fromEnv.stderr).toContain('take them out of OPENAI_BASE_URL');
    expect(servers.openai.requests).toHaveLength(0);
    expect(filesUnder(ws.cwd).filter((file) => !file.endsWith('spec.yaml'))).toEqual([]);
    expect(outputs.map((output) => output.stdout + output.stderr).join('')).not.toContain(password);
  });
});
