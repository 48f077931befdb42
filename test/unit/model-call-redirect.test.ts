import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompletionRequest } from '../../source/engine/provider.js';
import { ProviderError } from '../../source/engine/stop-errors.js';
import { AnthropicProvider } from '../../source/providers/anthropic-provider.js';
import { OpenAiProvider } from '../../source/providers/openai-provider.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A second server that records every request it gets, and a first that redirects every request to it. */
async function redirecting(status: number) {
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const elsewhere = await listen((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(500).end();
    });
  });
  const origin = await listen((req, res) => {
    req.resume();
    res.writeHead(status, { location: `${elsewhere.replace('127.0.0.1', 'localhost')}${req.url}?token=sk-proj-leakedsecret0123456789` }).end();
  });
  return { origin, seen };
}

const request = (): CompletionRequest => ({
  agent: 'worker',
  step: '0',
  attempt: 1,
  messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'the secret plan' }],
  context: {},
  signal: new AbortController().signal,
});

describe('a model server that answers a call with a redirect', () => {
  for (const status of [307, 308]) {
    it(`OpenAI-compatible, HTTP ${status}: the prompt and key are not sent on; the call fails, not retried, naming where it pointed`, async () => {
      const { origin, seen } = await redirecting(status);
      for (const stream of [false, true]) {
        const error = await new OpenAiProvider({ baseUrl: `${origin}/v1`, model: 'm1', apiKey: 'sk-abcdefghijklmnop0123', stream }).complete(request()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as ProviderError).retryable).toBe(false);
        expect((error as ProviderError).message).toContain(`answered HTTP ${status}, a redirect to http://localhost:`);
        expect((error as ProviderError).message).toContain('does not follow redirects');
        expect((error as ProviderError).message).not.toContain('leakedsecret');
      }
      expect(seen).toHaveLength(0);
    });
  }

  it('Anthropic, HTTP 307: x-api-key (which fetch would carry across origins) never reaches the other host', async () => {
    const { origin, seen } = await redirecting(307);
    const error = await new AnthropicProvider({ baseUrl: origin, model: 'claude-x', apiKey: 'sk-ant-abcdefghijklmnop0123' }).complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toContain('a redirect to http://localhost:');
    expect(seen).toHaveLength(0);
  });
});
