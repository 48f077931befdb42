import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { MemoryBlobStore } from '../../source/engine/blob-store.js';
import type { EngineEventBody } from '../../source/engine/events.js';
import { StepAbortedError } from '../../source/engine/stop-errors.js';
import { calculate } from '../../source/engine/tools/calculator.js';
import { maxResponseBytes } from '../../source/engine/tools/http-request.js';
import { agentTools } from '../../source/engine/tools/agent-tools.js';
import { readyExecutors } from '../../source/engine/tools/http-executors.js';
import { runTool, type ToolRunContext } from '../../source/engine/tools/tool-runner.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { secrets } from '../../source/secrets/redactor.js';
import { tempDir } from '../helpers/temp-dir.js';

function context(over: Partial<ToolRunContext> = {}) {
  const events: EngineEventBody[] = [];
  const ctx: ToolRunContext = { step: '0', attempt: 1, cwd: tempDir(), extraRoots: [], blobs: new MemoryBlobStore(), emit: (e) => events.push(e), ...over };
  return { events, ctx };
}

describe('calculator', () => {
  it('answers arithmetic as strands-cli does: expression = result', () => {
    expect(calculate('2 + 2')).toBe('2 + 2 = 4');
    expect(calculate('10 * 5 - 3')).toBe('10 * 5 - 3 = 47');
    expect(calculate('2 ** 10')).toBe('2 ** 10 = 1024');
    expect(calculate('sqrt(2) ^ 2')).toBe('sqrt(2) ^ 2 = 2');
    expect(calculate('x = 3; x * 7')).toBe('x = 3; x * 7 = 21');
  });

  it('never reaches JavaScript: no eval, no property access, no functions defined, no matrix builders', () => {
    for (const expression of ['constructor.constructor("return process")()', 'a.b', 'f(x) = x', 'ones(10000, 10000)', 'evaluate("1")', 'import({a: 1})', '{a: 1}', '1:1e9', '[1, 2]']) {
      expect(() => calculate(expression), expression).toThrow();
    }
  });

  it('says why it cannot answer', () => {
    expect(() => calculate('1 / 0')).toThrow(/division by zero/);
    expect(() => calculate('2 +')).toThrow(/cannot read the expression/);
    expect(() => calculate('x'.repeat(3000))).toThrow(/at most 2000/);
  });

  it('is a tool the model can call, and a bad expression is an error for the model, not a crash', async () => {
    const { ctx } = context();
    expect(await runTool({ id: '1', name: 'calculator', args: { expression: '6 * 7' } }, ctx)).toEqual({ ok: true, output: '6 * 7 = 42' });
    expect(await runTool({ id: '2', name: 'calculator', args: { expression: 'process.exit(1)' } }, ctx)).toMatchObject({ ok: false });
  });
});

/** A real HTTP server on 127.0.0.1 that answers as each test says. */
let server: Server | undefined;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

async function listen(answer: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  seen.length = 0;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      answer(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('http_request', () => {
  const given = new Set(['http_request']);

  it('sends a GET to an allowed host and answers status, headers and body, journaling no intent', async () => {
    const host = await listen((_req, _body, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello'));
    const { ctx, events } = context({ tools: given, allowHosts: [host] });
    const outcome = await runTool({ id: 'c1', name: 'http_request', args: { url: `http://${host}/a?b=1` } }, ctx);
    expect(outcome.ok).toBe(true);
    expect(outcome.output).toMatch(/^Status: 200\n\nHeaders:\n[\s\S]*"content-type": "text\/plain"[\s\S]*\n\nBody:\nhello$/);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /a?b=1']);
    expect(events).toEqual([]);
  });

  it('refuses a host the spec does not allow, sending nothing', async () => {
    const host = await listen((_req, _body, res) => res.end('should not be reached'));
    const port = host.split(':')[1];
    for (const [url, allow] of [
      [`http://localhost:${port}/`, [host]],
      [`http://${host}/`, ['127.0.0.1:1']],
      [`http://${host}/`, []],
      [`file:///etc/passwd`, ['127.0.0.1']],
    ] as const) {
      const { ctx } = context({ tools: given, allowHosts: allow });
      const outcome = await runTool({ id: 'c', name: 'http_request', args: { url } }, ctx);
      expect(outcome.ok, url).toBe(false);
      expect(outcome.output, url).toMatch(allow.length ? /not a host this workflow may reach|absolute http/ : /allows http_request no host/);
    }
    expect(seen).toEqual([]);
  });

  it('is refused to an agent the spec did not give it', async () => {
    const host = await listen((_req, _body, res) => res.end('x'));
    const { ctx } = context({ tools: new Set(['file_read']), allowHosts: [host] });
    expect(await runTool({ id: 'c', name: 'http_request', args: { url: `http://${host}/` } }, ctx)).toMatchObject({ ok: false, output: expect.stringMatching(/not one this agent was given/) });
    expect(seen).toEqual([]);
  });

  it('journals a request that changes the server before sending it', async () => {
    const host = await listen((_req, body, res) => res.end(`got ${body}`));
    const order: string[] = [];
    const { ctx, events } = context({ tools: given, allowHosts: [host] });
    ctx.emit = (e) => {
      order.push(`${e.type}:${seen.length}`);
      events.push(e);
    };
    const outcome = await runTool({ id: 'p1', name: 'http_request', args: { url: `http://${host}/items`, method: 'post', body: 'one' } }, ctx);
    expect(outcome.output).toMatch(/Body:\ngot one$/);
    expect(events).toEqual([{ type: 'tool_effect_intended', call_id: 'p1', step: '0', attempt: 1, name: 'http_request', what: `POST http://${host}/items` }]);
    // Journaled while the server had seen nothing.
    expect(order).toEqual(['tool_effect_intended:0']);
  });

  it('does not follow a redirect to a host the spec does not allow', async () => {
    const host = await listen((_req, _body, res) => res.writeHead(302, { location: 'http://example.com/elsewhere' }).end());
    const { ctx } = context({ tools: given, allowHosts: [host] });
    expect(await runTool({ id: 'c', name: 'http_request', args: { url: `http://${host}/` } }, ctx)).toMatchObject({ ok: false, output: expect.stringMatching(/redirected to http:\/\/example.com, which is not a host this workflow may reach/) });
  });

  it(`reads at most ${maxResponseBytes} bytes of a body`, async () => {
    const host = await listen((_req, _body, res) => {
      res.writeHead(200);
      // 4 MiB, in pieces: the reader stops after the first.
      const piece = 'x'.repeat(64 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 64 && res.write(piece)) sent++;
        if (sent < 64) res.once('drain', more);
        else res.end();
      };
      more();
    });
    const { ctx } = context({ tools: given, allowHosts: [host] });
    const outcome = await runTool({ id: 'c', name: 'http_request', args: { url: `http://${host}/big` } }, ctx);
    // What the model gets is cut again at the tools' 100,000 characters.
    expect(outcome.output.length).toBeLessThan(110_000);
    expect(outcome.output).toMatch(/cut at 100000 characters/);
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    const host = await listen(() => {
      // Never answers.
    });
    const { ctx } = context({ tools: given, allowHosts: [host] });
    const started = Date.now();
    expect(await runTool({ id: 'c', name: 'http_request', args: { url: `http://${host}/slow`, timeout: 1 } }, ctx)).toEqual({ ok: false, output: 'error: no answer within 1 s' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('hides a registered secret the server echoes back, whole and in pieces', async () => {
    // No lowercase word in front: a key's public prefix (`sk-proj-`) is no secret (redactor.ts publicPrefix).
    const key = 'Tok9xT4mZ2pL7vR1kW8sN3echo';
    secrets.register(key);
    const host = await listen((req, _body, res) => res.writeHead(200, { 'x-echo': key }).end(`you sent ${req.headers['x-token']} and the key is ${key.slice(0, 12)}…${key.slice(12)}`));
    const { ctx } = context({ tools: given, allowHosts: [host] });
    const outcome = await runTool({ id: 'c', name: 'http_request', args: { url: `http://${host}/`, headers: { 'x-token': key } } }, ctx);
    expect(seen[0]?.headers['x-token']).toBe(key);
    for (let i = 0; i + 8 <= key.length; i++) expect(outcome.output).not.toContain(key.slice(i, i + 8));
    expect(outcome.output).toContain('[REDACTED]');
  });

  it('stops with the run: a Ctrl+C cancels the request', async () => {
    const host = await listen(() => {});
    const stop = new AbortController();
    const { ctx } = context({ tools: given, allowHosts: [host], signal: stop.signal });
    const pending = runTool({ id: 'c', name: 'http_request', args: { url: `http://${host}/`, method: 'PUT', body: 'x' } }, ctx);
    setTimeout(() => stop.abort(), 100);
    await expect(pending).rejects.toBeInstanceOf(StepAbortedError);
  });
});

/** Whether a process still runs: a killed one whose parent died first may stay a zombie (state Z) until init reaps it. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('python_exec', () => {
  const given = new Set(['python_exec']);

  it('runs python3 in the working directory and answers what it printed, journaling the run first', async () => {
    const { ctx, events } = context({ tools: given });
    const outcome = await runTool({ id: 'x1', name: 'python_exec', args: { code: "import os\nopen('made.txt', 'w').write('hi')\nprint(os.getcwd())" } }, ctx);
    expect(outcome).toEqual({ ok: true, output: `${ctx.cwd}\n` });
    expect(readFileSync(join(ctx.cwd, 'made.txt'), 'utf8')).toBe('hi');
    expect(events).toEqual([{ type: 'tool_effect_intended', call_id: 'x1', step: '0', attempt: 1, name: 'python_exec', what: 'python_exec: 3 lines' }]);
  });

  it('answers a failure with stderr and the exit status', async () => {
    const { ctx } = context({ tools: given });
    const outcome = await runTool({ id: 'x', name: 'python_exec', args: { code: 'import sys\nprint("half")\nsys.exit("broken")' } }, ctx);
    expect(outcome).toEqual({ ok: false, output: 'half\n\nstderr:\nbroken\n\nexit status 1' });
  });

  it('is refused to an agent the spec did not give it', async () => {
    const { ctx, events } = context({ tools: new Set(['calculator']) });
    expect(await runTool({ id: 'x', name: 'python_exec', args: { code: "open('no.txt', 'w')" } }, ctx)).toMatchObject({ ok: false, output: expect.stringMatching(/not one this agent was given/) });
    expect(existsSync(join(ctx.cwd, 'no.txt'))).toBe(false);
    expect(events).toEqual([]);
  });

  it('kills the whole process group at the timeout, the code’s own children too', async () => {
    const { ctx } = context({ tools: given });
    const code = "import subprocess, time\np = subprocess.Popen(['sleep', '60'])\nopen('child.pid', 'w').write(str(p.pid))\ntime.sleep(60)";
    const started = Date.now();
    const outcome = await runTool({ id: 'x', name: 'python_exec', args: { code, timeout: 1 } }, ctx);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(outcome).toEqual({ ok: false, output: 'killed after 1 s (the timeout)' });
    const child = Number(readFileSync(join(ctx.cwd, 'child.pid'), 'utf8'));
    await expect.poll(() => alive(child)).toBe(false);
  });

  it('kills the group when the run stops, and the step stops', async () => {
    const stop = new AbortController();
    const { ctx } = context({ tools: given, signal: stop.signal });
    const pending = runTool({ id: 'x', name: 'python_exec', args: { code: "import os, time\nopen('me.pid', 'w').write(str(os.getpid()))\ntime.sleep(60)" } }, ctx);
    await expect.poll(() => existsSync(join(ctx.cwd, 'me.pid'))).toBe(true);
    stop.abort();
    await expect(pending).rejects.toBeInstanceOf(StepAbortedError);
    await expect.poll(() => alive(Number(readFileSync(join(ctx.cwd, 'me.pid'), 'utf8')))).toBe(false);
  });

  it('keeps at most 50,000 characters of what the code prints, and never blocks on it', async () => {
    const { ctx } = context({ tools: given });
    const outcome = await runTool({ id: 'x', name: 'python_exec', args: { code: "print('y' * 5_000_000)" } }, ctx);
    expect(outcome.ok).toBe(true);
    expect(outcome.output).toMatch(/^y{50000}\n\[… 4950001 more characters not kept\]$/);
  });

  it('runs without acode’s environment: no provider key reaches the code', async () => {
    process.env.ACODE_TEST_SECRET_VAR = 'visible';
    const { ctx } = context({ tools: given });
    const outcome = await runTool({ id: 'x', name: 'python_exec', args: { code: "import os\nprint(os.environ.get('ACODE_TEST_SECRET_VAR'), os.environ.get('OPENAI_API_KEY'))" } }, ctx);
    delete process.env.ACODE_TEST_SECRET_VAR;
    expect(outcome.output).toBe('None None\n');
  });
});

describe('HTTP executors (tools.http_executors)', () => {
  const executorSpec = (host: string) =>
    loadSpecText(
      stringify({
        version: 0,
        name: 'executors',
        runtime: { provider: 'scripted' },
        env: { secrets: [{ key: 'GH_PAT', name: 'GITHUB_TOKEN', source: 'env' }] },
        tools: { http_executors: [{ id: 'gh', base_url: `http://${host}/api/v3`, headers: { Authorization: 'Bearer ${GITHUB_TOKEN}', Accept: 'application/json' }, common_endpoints: [{ method: 'GET', path: '/repos/{owner}/{repo}', description: 'a repository' }] }] },
        agents: { researcher: { prompt: 'You look things up.', tools: ['gh'] } },
        pattern: { type: 'chain', config: { steps: [{ agent: 'researcher', input: 'Look it up.' }] } },
      }),
      'spec.yaml',
    ).spec;

  it('is a tool named by its id, described from its metadata, sending its path under base_url with its headers read from env.secrets', async () => {
    const token = 'Pz4kR7wQ2nX9vB5mT1yH8cJ3';
    const host = await listen((req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url, auth: req.headers.authorization })));
    const spec = executorSpec(host);
    const [tool] = agentTools(spec, 'researcher');
    expect(tool?.name).toBe('gh');
    expect(tool?.description).toContain('- GET /repos/{owner}/{repo}: a repository');
    const { ctx, events } = context({ tools: new Set(['gh']), executors: readyExecutors(spec, { GH_PAT: token }) });
    const outcome = await runTool({ id: 'g1', name: 'gh', args: { path: '/repos/acme/widgets?state=open' } }, ctx);
    expect(outcome.ok).toBe(true);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/v3/repos/acme/widgets?state=open', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    // The server echoed the token: the model is not told it.
    expect(outcome.output).toContain('"auth":"Bearer [REDACTED]"');
    expect(outcome.output).not.toContain(token.slice(4, 12));
    expect(events).toEqual([]);
  });

  it('journals a call that changes the server, and never leaves its base URL', async () => {
    const host = await listen((_req, body, res) => res.end(`stored ${body}`));
    const spec = executorSpec(host);
    const { ctx, events } = context({ tools: new Set(['gh']), executors: readyExecutors(spec, {}) });
    const posted = await runTool({ id: 'g2', name: 'gh', args: { method: 'POST', path: 'issues', json_data: { title: 'x' } } }, ctx);
    expect(posted.output).toMatch(/Body:\nstored \{"title":"x"\}$/);
    expect(events).toEqual([expect.objectContaining({ type: 'tool_effect_intended', name: 'gh', what: `POST http://${host}/api/v3/issues` })]);
    for (const path of ['http://example.com/x', '../../outside']) {
      expect(await runTool({ id: 'g3', name: 'gh', args: { path } }, ctx), path).toMatchObject({ ok: false, output: expect.stringMatching(/path must stay under/) });
    }
    expect(seen).toHaveLength(1);
  });
});
