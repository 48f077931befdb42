import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli, startCli } from '../helpers/cli.js';
import { OpenAiTestServer } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { code, events, killWhilePythonRuns, runs, sessionId, startedGroups, workspace } from '../helpers/uncertain-calls.js';

/**
 * A crash while a call with effects outside the journal runs — python_exec, an http_request that is
 * not GET — leaves it uncertain: it may or may not have happened. These kill acode with SIGKILL while
 * such a call runs (a real python3 child, a real request to a loopback server), then resume.
 */

describe('a python_exec cut off by kill -9', () => {
  it('is uncertain in the dry-run plan, and a resume takes it as not done without running it again', async () => {
    const ws = workspace({ name: 'python_exec', args: { code } });
    await killWhilePythonRuns(ws);
    const id = sessionId(ws);

    const plan = await runCli(['resume', id, '--dry-run'], ws);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/uncertain: +python_exec: 6 lines \(.+\): cut off when the session stopped; it may or may not have happened: taken as not done, not run again; the model is told/);
    const json = JSON.parse((await runCli(['resume', id, '--dry-run', '--json'], ws)).stdout) as { uncertain_calls: unknown[] };
    expect(json.uncertain_calls).toEqual([expect.objectContaining({ tool: 'python_exec', what: 'python_exec: 6 lines', outcome: 'not_done' })]);
    // Dry: nothing was settled.
    expect(events(ws).some((e) => e.type === 'tool_effect_recovered')).toBe(false);

    writeFileSync(join(ws.cwd, 'go-on'), '');
    // `prompt` with no terminal to ask: taken as not done, and said.
    const resumed = await runCli(['resume', id, '--json', '--strategy', 'prompt'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/a call was cut off when the session stopped and may or may not have happened \(python_exec: 6 lines .*\); taken as not done, not run again/);
    expect((JSON.parse(resumed.stdout) as { status: string }).status).toBe('completed');
    expect(runs(ws)).toHaveLength(1);
    const log = events(ws);
    expect(log.filter((e) => e.type === 'tool_effect_intended')).toHaveLength(1);
    expect(log.find((e) => e.type === 'tool_effect_recovered')).toMatchObject({ name: 'python_exec', outcome: 'not_done', output: expect.stringMatching(/cut off when the session stopped: it may or may not have happened, and acode did not run it again/) });
    // The step view shows the call with what the model was told.
    const shown = await runCli(['sessions', 'show', id, '--step', '1'], ws);
    expect(shown.stdout).toMatch(/python_exec[\s\S]*cut off when the session stopped: it may or may not have happened/);
  });

  it('runs again when the strategy is retry', async () => {
    const ws = workspace({ name: 'python_exec', args: { code } });
    const first = await killWhilePythonRuns(ws);
    const id = sessionId(ws);
    expect((await runCli(['resume', id, '--dry-run', '--strategy', 'retry'], ws)).stdout).toMatch(/uncertain: +python_exec: 6 lines .*: run again \(--strategy retry\)/);

    writeFileSync(join(ws.cwd, 'go-on'), '');
    const resumed = await runCli(['resume', id, '--json', '--strategy', 'retry'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((JSON.parse(resumed.stdout) as { status: string }).status).toBe('completed');
    const [again, second] = [runs(ws).length, runs(ws)[1]];
    startedGroups.push(second!);
    expect(again).toBe(2);
    expect(second).not.toBe(first);
    const log = events(ws);
    expect(log.find((e) => e.type === 'tool_effect_recovered')).toMatchObject({ outcome: 'run_again' });
    expect(log.filter((e) => e.type === 'tool_result')).toEqual([expect.objectContaining({ name: 'python_exec', ok: true, output: 'finished\n' })]);
  });
});

describe('a POST cut off by kill -9', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  it('is never sent again by a resume that takes it as not done', async () => {
    const received: string[] = [];
    // Takes the POST and never answers: the kill lands while acode waits.
    server = createServer((req) => received.push(`${req.method} ${req.url}`));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ws = workspace({ name: 'http_request', args: { url: `http://${host}/orders`, method: 'POST', body: '{"pay": 100}' } }, { security: { guardrails: { allow_hosts: [host] } } });
    const run = startCli(['run', ws.spec], ws);
    try {
      await expect.poll(() => received.length, { timeout: 20_000 }).toBe(1);
    } finally {
      run.child.kill('SIGKILL');
    }
    await run.done;
    const id = sessionId(ws);
    expect((await runCli(['resume', id, '--dry-run'], ws)).stdout).toMatch(new RegExp(`uncertain: +POST http://${host}/orders \\(.+\\): cut off when the session stopped; it may or may not have happened: taken as not done`));
    const resumed = await runCli(['resume', id, '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((JSON.parse(resumed.stdout) as { status: string }).status).toBe('completed');
    expect(received).toEqual(['POST /orders']);
  });
});

/** Every file under `dir`, as text. */
function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
}

describe('http_request against a server that echoes credentials', () => {
  let echo: Server | undefined;
  const model = new OpenAiTestServer();
  afterEach(async () => {
    echo?.closeAllConnections();
    await new Promise((resolve) => (echo ? echo.close(resolve) : resolve(undefined)));
    await model.stop();
  });

  it('keeps the API key and env.secrets out of the log, the session files, the output and what the model is told', async () => {
    const apiKey = 'Kq7vT2xL9mW4pR8sN1cZ5bY3';
    const token = 'Gh6dF0jS8aP2qV4wE7rU1tI9';
    // The server echoes both back, in its headers and its body, whole and cut in two.
    echo = createServer((_req, res) => res.writeHead(200, { 'x-echo': apiKey }).end(`key=${apiKey} token=${token.slice(0, 12)}|${token.slice(12)} ${token}`));
    await new Promise<void>((resolve) => echo!.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(echo.address() as AddressInfo).port}`;
    model.handler = (r) => (r.body.messages.at(-1)?.role === 'tool' ? { kind: 'answer', text: 'read it' } : { kind: 'tool_calls', calls: [{ id: 'h1', name: 'http_request', args: { url: `http://${host}/whoami` } }] });
    const baseUrl = await model.start();

    const root = tempDir();
    const cwd = join(root, 'work');
    mkdirSync(cwd);
    const spec = {
      version: 0,
      name: 'echo',
      runtime: { provider: 'openai', model_id: 'test-model', host: baseUrl },
      env: { secrets: [{ key: 'SERVICE_TOKEN', source: 'env' }] },
      tools: { python: ['http_request'] },
      security: { guardrails: { allow_hosts: [host] } },
      agents: { reader: { prompt: 'You read.' } },
      pattern: { type: 'chain', config: { steps: [{ agent: 'reader', input: 'Call it.' }] } },
    };
    writeFileSync(join(root, 'spec.yaml'), stringify(spec));
    const home = join(root, 'home');
    const result = await runCli(['run', join(root, 'spec.yaml'), '--json'], { cwd, env: { ACODE_HOME: home, OPENAI_API_KEY: apiKey, SERVICE_TOKEN: token } });
    expect(result.code, result.stderr).toBe(0);

    const told = JSON.stringify(model.requests.at(-1)?.body.messages.at(-1));
    expect(told).toMatch(/Status: 200/);
    const places = { told, stdout: result.stdout, stderr: result.stderr, files: allFiles(home).join('\n'), cwd: allFiles(cwd).join('\n') };
    for (const secret of [apiKey, token]) {
      for (let i = 0; i + 8 <= secret.length; i++) {
        for (const [where, text] of Object.entries(places)) expect(text.includes(secret.slice(i, i + 8)), `${secret.slice(i, i + 8)} in ${where}`).toBe(false);
      }
    }
    expect(places.files).toMatch(/tool_result/);
  });
});

describe('python_exec on a machine without python3', () => {
  it('is refused before the run starts, saying what to do, with nothing stored', async () => {
    const ws = workspace({ name: 'python_exec', args: { code } });
    const bin = tempDir();
    symlinkSync(process.execPath, join(bin, 'node'));
    const result = await runCli(['run', ws.spec], { cwd: ws.cwd, env: { ...ws.env, PATH: bin } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/agent 'coder' is given python_exec, which runs python3, and python3 is not on PATH: install Python 3/);
    expect(existsSync(join(ws.home, 'sessions'))).toBe(false);
  });
});
