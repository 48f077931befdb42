import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicError, anthropicServerPerTest } from '../helpers/anthropic-server.js';
import { cliPath, runCli } from '../helpers/cli.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';
import { requestServers } from '../helpers/request-servers.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { TmuxTerminal } from '../helpers/tmux.js';

let terminal: TmuxTerminal | undefined;
afterEach(() => terminal?.close());

const openai = openAiServerPerTest();
const anthropic = anthropicServerPerTest();

/** A session paused at step 1: the server refused the first call with a bad key. */
async function pausedSession(spec: string, env: Record<string, string>, refuseOnce: () => void) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  const ws = { cwd, home, env: { ACODE_HOME: home, ...env } };
  refuseOnce();
  const run = await runCli(['run', 'spec.yaml'], ws);
  expect(run.code).toBe(1);
  const [record] = parseAllSessionFiles(home);
  expect(record!.checkpoint).toMatchObject({ status: 'paused', steps_done: 0 });
  return { ...ws, id: record!.session_id };
}

describe('before a resume, the provider is asked for the models the rest of the session needs', () => {
  let server: OpenAiTestServer;
  let root: string;
  const ollamaSession = () =>
    pausedSession(chainSpec({ steps: 2, provider: 'ollama', host: root }), {}, () => {
      let refused = false;
      server.handler = () => (refused ? { kind: 'answer' } : ((refused = true), { kind: 'error', status: 401, body: { error: { message: 'bad key', code: 'invalid_api_key' } } }));
    });
  beforeEach(() => {
    server = openai.current().server;
    root = openai.current().baseUrl.replace(/\/v1$/, '');
  });

  it('resumes when Ollama lists the model under its :latest tag, saying so', async () => {
    const ws = await ollamaSession();
    server.models = ['test-model:latest', 'qwen2.5:latest'];
    const resumed = await runCli(['resume', ws.id], ws);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`model:           test-model offered by ${root}/v1`);
    expect(server.modelListRequests).toHaveLength(1);
  });

  it('refuses (exit 17) when the model is not offered, changing nothing; --dry-run shows it; --yes goes on', async () => {
    const ws = await ollamaSession();
    server.models = ['qwen2.5:latest'];
    const before = hashFolder(ws.home);
    const refused = await runCli(['resume', ws.id], ws);
    expect(refused.code).toBe(17);
    expect(refused.stderr).toContain(`ACODE-RESUME-004`);
    expect(refused.stderr).toContain(`model test-model not offered by ${root}/v1 (it offers qwen2.5:latest). Pull it ('ollama pull test-model'), then resume; 'acode resume ${ws.id} --yes' goes on anyway`);
    expect(hashFolder(ws.home)).toEqual(before);
    const dry = await runCli(['resume', ws.id, '--dry-run'], ws);
    // Exits as the resume would, so that `acode resume --dry-run && acode resume` stops here in a script.
    expect(dry.code).toBe(17);
    expect(dry.stdout).toContain(`  model:           test-model not offered by ${root}/v1 (it offers qwen2.5:latest)`);
    expect(dry.stderr).toContain(`dry run: the resume would stop here (exit 17): session ${ws.id} was not resumed: model test-model not offered`);
    const json = JSON.parse((await runCli(['resume', ws.id, '--dry-run', '--json'], ws)).stdout) as { models: unknown };
    expect(json.models).toEqual([{ model: 'test-model', host: `${root}/v1`, status: 'missing' }]);
    expect((await runCli(['resume', ws.id, '--dry-run', '--yes'], ws)).code).toBe(0);
    expect(hashFolder(ws.home)).toEqual(before);
    const anyway = await runCli(['resume', ws.id, '--yes'], ws);
    expect(anyway.code).toBe(0);
    expect(parseAllSessionFiles(ws.home)[0]!.checkpoint).toMatchObject({ status: 'completed' });
  });

  it('asks in a terminal: n stops (exit 17), y goes on as --yes would', async () => {
    const ws = await ollamaSession();
    server.models = ['qwen2.5:latest'];
    terminal = new TmuxTerminal(ws.cwd, { ACODE_HOME: ws.home, PATH: process.env.PATH ?? '' });
    const question = `acode: model test-model not offered by ${root}/v1 (it offers qwen2.5:latest). Resume anyway? [y/N]`;
    terminal.run(`node ${cliPath} resume ${ws.id}; echo "EXIT=$?"`);
    await terminal.waitFor((s) => s.includes(question));
    terminal.run('n');
    expect(await terminal.waitFor((s) => /EXIT=\d+/.test(s))).toContain('EXIT=17');
    terminal.run('clear');
    terminal.run(`node ${cliPath} resume ${ws.id}; echo "DONE=$?"`);
    await terminal.waitFor((s) => s.includes(question));
    terminal.run('y');
    expect(await terminal.waitFor((s) => /DONE=\d+/.test(s), 20_000)).toContain('DONE=0');
    expect(parseAllSessionFiles(ws.home)[0]!.checkpoint).toMatchObject({ status: 'completed' });
  });

  it('refuses (exit 17) when the server cannot be reached, within seconds; --dry-run shows why', async () => {
    const ws = await ollamaSession();
    await server.stop();
    const started = Date.now();
    const refused = await runCli(['resume', ws.id], ws);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(refused.code).toBe(17);
    expect(refused.stderr).toContain(`model test-model: cannot reach ${root}/v1 (connection refused). Start the server, or check the network, then resume; 'acode resume ${ws.id} --yes' goes on anyway`);
    const dry = await runCli(['resume', ws.id, '--dry-run', '--json'], ws);
    expect(dry.code).toBe(17);
    expect((JSON.parse(dry.stdout) as { models: unknown }).models).toEqual([{ model: 'test-model', host: `${root}/v1`, status: 'unreachable', detail: 'connection refused' }]);
    await openai.restart(); // the fixture's afterEach stops a running one
  });

  it('goes on, noting it, when the model list is far too long to be one (read no further than 16 MiB)', async () => {
    const ws = await ollamaSession();
    // ~26 MB of list: an endless one drove resume --dry-run past a gigabyte of memory.
    server.models = Array.from({ length: 260_000 }, (_, i) => `model-${i}-${'x'.repeat(40)}`);
    const resumed = await runCli(['resume', ws.id], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/model: {11}test-model: not checked, .*ran past 16 MiB/);
  });

  it('goes on, noting it, when the server has no model list', async () => {
    const ws = await ollamaSession();
    const resumed = await runCli(['resume', ws.id], ws);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/model: {11}test-model: not checked, .* answered HTTP 404/);
  });
});

describe('the Anthropic model check', () => {
  it('asks GET /v1/models/{id} with the key in x-api-key, and never prints the key', async () => {
    const { server, baseUrl } = anthropic.current();
    const key = 'sk-ant-test-secret-key-0123456789';
    const spec = chainSpec({ steps: 2, provider: 'anthropic', host: baseUrl });
    const ws = await pausedSession(spec, { ANTHROPIC_API_KEY: key }, () => {
      let refused = false;
      server.handler = () => (refused ? { kind: 'answer' } : ((refused = true), { kind: 'error', status: 401, body: anthropicError('authentication_error', 'invalid x-api-key') }));
    });
    server.models = { 'claude-test': 'claude-test-20250101' };
    const missing = await runCli(['resume', ws.id], ws);
    expect(missing.code).toBe(17);
    expect(missing.stderr).toContain(`model test-model not offered by ${baseUrl}. Serve it there`);
    expect(server.modelRequests.at(-1)).toMatchObject({ 'x-api-key': key, 'anthropic-version': '2023-06-01' });
    server.models = { 'test-model': 'test-model-20250101' };
    const resumed = await runCli(['resume', ws.id], ws);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`model:           test-model offered by ${baseUrl}`);
    for (const out of [missing.stdout, missing.stderr, resumed.stdout, resumed.stderr]) expect(out).not.toContain(key);
  });
});

/** A folder holding `spec` as spec.yaml, and a store of its own. */
function specWorkspace(spec: string) {
  const cwd = tempDir();
  const home = join(cwd, 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } as Record<string, string> };
}

const listen = requestServers();

describe('what the model check before a resume sends and prints', () => {
  // FIXED: source/providers/model-list.ts: fetch followed redirects, and on a cross-origin redirect fetch drops only
  // Authorization — the Anthropic check's x-api-key went to whatever host the redirect named. The check no longer follows
  // redirects (redirect: 'manual'): a 3xx is reported as 'not checked … a redirect to X', and no key leaves.
  it('the Anthropic model check never sends the API key to another origin a redirect names', async () => {
    const key = 'sk-ant-test-secret-key-0123456789';
    const seenElsewhere: IncomingHttpHeaders[] = [];
    const elsewhere = await listen((req, res) => {
      seenElsewhere.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'model', id: 'test-model', display_name: 'x', created_at: '2025-01-01T00:00:00Z' }));
    });
    const origin = await listen((req, res) => {
      if (req.method === 'GET') return void res.writeHead(307, { location: `${elsewhere.replace('127.0.0.1', 'localhost')}${req.url}` }).end();
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    });
    const ws = specWorkspace(chainSpec({ steps: 2, provider: 'anthropic', host: origin }));
    ws.env.ANTHROPIC_API_KEY = key;
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    await runCli(['resume', record!.session_id, '--dry-run'], ws);
    for (const headers of seenElsewhere) expect(headers['x-api-key']).toBeUndefined();
    expect(seenElsewhere).toHaveLength(0);
  });

  // FIXED: source/session/model-check.ts: model ids a server lists were printed as sent; every server-provided string the
  // model check prints (ids, error details, redirect targets) is now stripped of ESC sequences and C0/C1 controls.
  it('model ids a server lists are printed without their control characters', async () => {
    const { server, baseUrl } = openai.current();
    const root = baseUrl.replace(/\/v1$/, '');
    const ws = specWorkspace(chainSpec({ steps: 2, provider: 'ollama', host: root }));
    let refused = false;
    server.handler = () => (refused ? { kind: 'answer' } : ((refused = true), { kind: 'error', status: 401, body: { error: { message: 'bad key', code: 'invalid_api_key' } } }));
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    server.models = ['\u001b]0;pwned\u0007\u001b[2Jqwen2.5:latest'];
    const refusedResume = await runCli(['resume', record!.session_id], ws);
    expect(refusedResume.code).toBe(17);
    expect(refusedResume.stderr).toContain('qwen2.5:latest');
    expect(refusedResume.stderr).not.toContain('\u001b');
    expect(refusedResume.stderr).not.toContain('\u0007');
  });

  // FIXED: source/commands/resume.ts (the plan's model line): a model list that echoes the API key was redacted in the exit-17
  // error but not in `resume --dry-run`; modelLine (and the listed ids themselves) now go through the redactor.
  it('resume --dry-run never prints the API key a server echoes in its model list', async () => {
    const { server, baseUrl } = openai.current();
    const key = 'sk-proj-abcdefghijklmnop0123456789';
    const ws = specWorkspace(chainSpec({ steps: 2, provider: 'openai', host: baseUrl }));
    ws.env.OPENAI_API_KEY = key;
    let refused = false;
    server.handler = () => (refused ? { kind: 'answer' } : ((refused = true), { kind: 'error', status: 401, body: { error: { message: 'bad key', code: 'invalid_api_key' } } }));
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    server.models = [`echo-${key.slice(3, 20)}`, 'gpt-4o'];
    const refusedResume = await runCli(['resume', record!.session_id], ws);
    expect(refusedResume.stderr).not.toContain(key.slice(3, 20)); // the error redacts it
    const dry = await runCli(['resume', record!.session_id, '--dry-run'], ws);
    expect(dry.code).toBe(17); // as the resume would: its refusal, redacted, on stderr
    expect(dry.stdout).toContain('model:           test-model not offered');
    expect(dry.stdout + dry.stderr).not.toContain(key.slice(3, 20));
  });

  // FIXED: source/session/model-check.ts (modelLine): '…' was added whenever five models were shown; it now shows only when the
  // server lists more than the five shown.
  it('a server offering exactly five models is not said to offer more', async () => {
    const { server, baseUrl } = openai.current();
    const root = baseUrl.replace(/\/v1$/, '');
    const ws = specWorkspace(chainSpec({ steps: 2, provider: 'ollama', host: root }));
    let refused = false;
    server.handler = () => (refused ? { kind: 'answer' } : ((refused = true), { kind: 'error', status: 401, body: { error: { message: 'bad key', code: 'invalid_api_key' } } }));
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(1);
    const [record] = parseAllSessionFiles(ws.home);
    server.models = ['a:latest', 'b:latest', 'c:latest', 'd:latest', 'e:latest'];
    const result = await runCli(['resume', record!.session_id], ws);
    expect(result.code).toBe(17);
    expect(result.stderr).toContain('(it offers a:latest, b:latest, c:latest, d:latest, e:latest)');
  });
});
