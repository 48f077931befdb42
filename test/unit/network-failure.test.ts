import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../source/engine/stop-errors.js';
import { classifyNetworkFailure, isLocalHost, localRetryDelayMs } from '../../source/providers/network-failure.js';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What fetch really throws for `url`. */
const fetchError = (url: string) => fetch(url).then(() => expect.unreachable('nothing should answer'), (error: unknown) => error);

describe('a request that never got an answer', () => {
  it('knows loopback, private, link-local and .local hosts from public ones', () => {
    for (const url of ['http://localhost:11434', 'http://127.0.0.1:8080/v1', 'http://[::1]:1234', 'http://10.0.0.7/v1', 'http://172.20.1.1', 'http://192.168.1.20:11434', 'http://gpu-box.local:11434', 'http://[fd12::1]/', 'http://169.254.1.2'])
      expect(isLocalHost(url), url).toBe(true);
    for (const url of ['https://api.openai.com/v1', 'https://api.anthropic.com', 'http://172.32.0.1', 'http://8.8.8.8', 'not a url']) expect(isLocalHost(url), url).toBe(false);
  });

  it('a single-label name (a Docker Compose service such as `ollama`, a LAN host) is local; dotted names stay remote', () => {
    for (const url of ['http://ollama:11434', 'http://gpu-box:8000/v1', 'http://[::]:11434']) expect(isLocalHost(url), url).toBe(true);
    for (const url of ['http://ollama.example.com:11434', 'https://api.together.xyz/v1']) expect(isLocalHost(url), url).toBe(false);
  });

  it('a refused connection on this machine is retried once, soon, and says so in words', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1/chat/completions`;
    const error = classifyNetworkFailure(await fetchError(url), url, 'is Ollama running?');
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.advice).toEqual({ detail: 'connection refused', retryAfterMs: localRetryDelayMs, retryLimit: 1 });
    expect(error.message).toBe(`cannot reach ${url} (connection refused, ECONNREFUSED); is Ollama running?`);
  });

  it('a refused connection on `localhost` (tried as ::1 and 127.0.0.1) is local too', async () => {
    const url = `http://localhost:${await closedPort()}/v1/models`;
    const error = classifyNetworkFailure(await fetchError(url), url, 'hint');
    expect(error.advice).toMatchObject({ detail: 'connection refused', retryLimit: 1 });
  });

  it('a refused connection elsewhere keeps the usual backoff', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    const error = classifyNetworkFailure(refused, 'https://api.example.com/v1/chat/completions', 'hint');
    expect(error.advice).toEqual({ detail: 'connection refused' });
  });

  it('names a reset connection or an unknown host in words', () => {
    const reset = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
    expect(classifyNetworkFailure(reset, 'http://127.0.0.1:1/v1', 'hint').advice).toEqual({ detail: 'connection reset' });
    const unknown = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } });
    expect(classifyNetworkFailure(unknown, 'https://nope.example/v1', 'hint').message).toContain('(host not found, ENOTFOUND)');
  });
});

describe('which hosts are local', () => {
  // Was: source/providers/network-failure.ts (isLocalHost): WHATWG URL writes an IPv4-mapped IPv6 address in hex
  // ('[::ffff:127.0.0.1]' is '::ffff:7f00:1'); isLocalHost now reads the hex form as well as the dotted one, so a refused local
  // server behind a mapped address pauses after one quick retry.
  it('an IPv4-mapped IPv6 loopback or private address is local', () => {
    expect(isLocalHost('http://[::ffff:127.0.0.1]:11434')).toBe(true);
    expect(isLocalHost('http://[::ffff:192.168.1.5]:11434/v1')).toBe(true);
  });

  // Was: source/providers/network-failure.ts (isLocalHost): 0.0.0.0 — what `OLLAMA_HOST=0.0.0.0 ollama serve` prints and
  // people copy into runtime.host — connects to this machine and is now judged local (as is [::]), so a refused connection
  // fails fast instead of waiting out the full backoff.
  it('0.0.0.0 (this machine, as a server listening on all interfaces prints it) is local', () => {
    expect(isLocalHost('http://0.0.0.0:11434')).toBe(true);
  });
});
