import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError, StepAbortedError } from '../../source/engine/stop-errors.js';
import { readEventStream } from '../../source/providers/event-stream.js';
import { classifyNetworkFailure, localRetryDelayMs } from '../../source/providers/network-failure.js';
import { openResponse, postJson, type JsonPost } from '../../source/providers/post-json.js';
import { answeringServers } from '../helpers/answering-server.js';
import { bundleForChild } from '../helpers/bundle-for-child.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A server on 127.0.0.1 that notes every connection it accepts and when each closes. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const sockets: Socket[] = [];
  const closed: Socket[] = [];
  const server = createServer((req, res) => req.on('end', () => handler(req, res)).resume());
  // The client, not the server, decides when an idle connection ends.
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    sockets.push(socket);
    socket.on('close', () => closed.push(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  return { url, sockets, closed };
}

const post = (url: string, signal = new AbortController().signal): JsonPost => ({ url, headers: {}, body: { stream: true }, signal, provider: 'openai', endpoint: url, unreachableHint: 'is the server running?' });

/** Writes an SSE event every 20 ms until the client goes away. */
function endlessStream(_req: IncomingMessage, res: ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const timer = setInterval(() => res.write('data: {"piece":1}\n\n'), 20);
  res.on('close', () => clearInterval(timer));
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return done();
};

describe('a model call over node:http', () => {
  it('a stop of the run mid-stream is StepAbortedError, and the server sees its connection close', async () => {
    const server = await listen(endlessStream);
    const stop = new AbortController();
    const call = post(server.url, stop.signal);
    let events = 0;
    const reading = readEventStream(await openResponse(call), call, () => {
      if (++events === 2) stop.abort();
    });
    await expect(reading).rejects.toBeInstanceOf(StepAbortedError);
    expect(await until(() => server.closed.length === 1)).toBe(true);
  });

  it('a handler that throws ends the stream with its error and closes the connection', async () => {
    const server = await listen(endlessStream);
    const call = post(server.url);
    const reading = readEventStream(await openResponse(call), call, () => {
      throw new ProviderError('the model said error', false);
    });
    await expect(reading).rejects.toThrow('the model said error');
    expect(await until(() => server.closed.length === 1)).toBe(true);
  });

  it('a stop while the server has not answered yet is StepAbortedError', async () => {
    const server = await listen(() => undefined);
    const stop = new AbortController();
    const opening = openResponse(post(server.url, stop.signal));
    await until(() => server.sockets.length === 1);
    stop.abort();
    await expect(opening).rejects.toBeInstanceOf(StepAbortedError);
    expect(await until(() => server.closed.length === 1)).toBe(true);
  });

  it('the next model call reuses the connection of the last', async () => {
    const server = await listen((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    expect(await postJson(post(server.url))).toEqual({ ok: true });
    expect(await postJson(post(server.url))).toEqual({ ok: true });
    expect(server.sockets).toHaveLength(1);
  });

  it('a failed status is classified from its whole body and its retry-after header', async () => {
    const server = await listen((_req, res) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end('{"error":{"message":"slow down","type":"rate_limit_error"}}'));
    await expect(openResponse(post(server.url))).rejects.toMatchObject({ name: 'RateLimitError', retryAfterMs: 7000 });
  });

  it('a refused connection on 127.0.0.1 is classified as it was with fetch: retried once, soon', async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://127.0.0.1:${port}/v1/chat/completions`;
    const error = await openResponse(post(url)).then(() => expect.unreachable('nothing listens'), (e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toBe(`cannot reach ${url} (connection refused, ECONNREFUSED); is the server running?`);
    expect((error as ProviderError).advice).toEqual({ detail: 'connection refused', retryAfterMs: localRetryDelayMs, retryLimit: 1 });
  });

  it('reads the code of every address happy eyeballs tried (an AggregateError, bare or under fetch\'s cause)', () => {
    const attempts = [Object.assign(new Error('connect ECONNREFUSED ::1:8080'), { code: 'ECONNREFUSED' }), Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED' })];
    const bare = new AggregateError(attempts, '');
    const underCause = Object.assign(new TypeError('fetch failed'), { cause: bare });
    for (const error of [bare, underCause]) expect(classifyNetworkFailure(error, 'http://localhost:8080/v1', 'hint').advice).toEqual({ detail: 'connection refused', retryAfterMs: localRetryDelayMs, retryLimit: 1 });
  });

  it('a kept-alive connection does not keep the process alive once the call is done', async () => {
    const server = await listen((_req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"piece":1}\n\ndata: [DONE]\n\n'));
    const child = bundleForChild(`
      import { readEventStream } from './source/providers/event-stream.js';
      import { openResponse } from './source/providers/post-json.js';
      const url = process.argv[2];
      const call = { url, headers: {}, body: {}, signal: new AbortController().signal, provider: 'openai', endpoint: url, unreachableHint: '' };
      let events = 0;
      await readEventStream(await openResponse(call), call, () => void events++);
      console.log(events);
    `);
    const started = performance.now();
    const run = spawn(process.execPath, [child, server.url]);
    let out = '';
    run.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise((resolve) => run.on('exit', resolve));
    expect(code).toBe(0);
    expect(out.trim()).toBe('2');
    // The server keeps idle connections a minute; the child is gone long before.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(server.closed).toHaveLength(1);
  });
});

/** A real HTTP server on 127.0.0.1 answering every request with `handler`, at the base URL it returns (closed after each test). */
const listenAnswering = answeringServers();

describe('header values node:http cannot send', () => {
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
      const base = await listenAnswering((res) => {
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

describe('silence before the answer, and keys that cannot be sent', () => {
  it('a server that accepts the call and never answers is dropped as retryable network trouble that says it was silent', async () => {
    const base = await listenAnswering(() => undefined);
    // As after silentAnswerMs (300 s), shortened so the test is quick.
    const opened = openResponse({ ...post(`${base}/v1/chat/completions`), silentAfterMs: 200 });
    const error = await opened.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toContain('sent nothing for 5 minutes');
  });

  it('a key with a line break inside is refused before anything is sent, naming the header and never the key', async () => {
    let requests = 0;
    const base = await listenAnswering((res) => {
      requests++;
      res.end('{}');
    });
    const call = { ...post(`${base}/v1/chat/completions`), headers: { authorization: 'Bearer sk-abcdef0123456789\nsk-second-line-0123' } };
    const error = await openResponse(call).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toContain('authorization header');
    expect((error as ProviderError).message).not.toContain('sk-');
    expect(requests).toBe(0);
  });
});
