import { beforeEach, describe, expect, it } from 'vitest';
import type { CompletionRequest } from '../../source/engine/provider.js';
import { ContextExhaustedError, ProviderError, RateLimitError, StepAbortedError } from '../../source/engine/stop-errors.js';
import { createProvider } from '../../source/providers/create-provider.js';
import { OpenAiProvider } from '../../source/providers/openai-provider.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { openAiServerPerTest, type OpenAiTestServer } from '../helpers/openai-server.js';

const fixture = openAiServerPerTest();
let server: OpenAiTestServer;
let baseUrl: string;
beforeEach(() => ({ server, baseUrl } = fixture.current()));

function request(overrides: Partial<CompletionRequest> = {}): CompletionRequest {
  return {
    agent: 'worker',
    step: '0',
    attempt: 1,
    messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'Step 0: hello' }],
    context: {},
    signal: new AbortController().signal,
    ...overrides,
  };
}

const provider = (extra: Partial<ConstructorParameters<typeof OpenAiProvider>[0]> = {}) => new OpenAiProvider({ baseUrl, model: 'm1', ...extra });

describe('the OpenAI-compatible provider', () => {
  it('posts chat completions and returns the text with the usage the server reports', async () => {
    server.handler = () => ({ kind: 'answer', text: 'hi there' });
    const result = await provider({ temperature: 0.3, maxTokens: 64, apiKey: 'sk-abc' }).complete(request());
    expect(result).toEqual({ text: 'hi there', usage: { input: 'Step 0: hello'.length, output: 'hi there'.length } });
    const [sent] = server.requests;
    expect(sent!.body).toMatchObject({ model: 'm1', temperature: 0.3, max_tokens: 64, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'Step 0: hello' }] });
    expect(sent!.headers.authorization).toBe('Bearer sk-abc');
  });

  it('sends no authorization header without a key (local servers)', async () => {
    await provider().complete(request());
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('turns 429 with retry-after into a rate limit with the wait in ms', async () => {
    server.handler = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } });
    const error = await provider().complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(7000);
  });

  it('prefers retry-after-ms when the server sends it', async () => {
    server.handler = () => ({ kind: 'error', status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '2' }, body: { error: { message: 'slow down' } } });
    const error = (await provider().complete(request()).catch((e: unknown) => e)) as RateLimitError;
    expect(error.retryAfterMs).toBe(1500);
  });

  it('treats insufficient_quota as a failure, not a rate limit', async () => {
    server.handler = () => ({ kind: 'error', status: 429, body: { error: { message: 'You exceeded your current quota', code: 'insufficient_quota' } } });
    const error = await provider().complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
  });

  it('recognises context-length errors', async () => {
    server.handler = () => ({
      kind: 'error',
      status: 400,
      body: { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } },
    });
    await expect(provider().complete(request())).rejects.toBeInstanceOf(ContextExhaustedError);
  });

  it('marks server errors retryable and auth errors not', async () => {
    server.handler = () => ({ kind: 'error', status: 500, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error' } } });
    expect(((await provider().complete(request()).catch((e: unknown) => e)) as ProviderError).retryable).toBe(true);
    server.handler = () => ({ kind: 'error', status: 401, body: { error: { message: 'Incorrect API key provided' } } });
    const auth = (await provider({ apiKey: 'sk-secret-value' }).complete(request()).catch((e: unknown) => e)) as ProviderError;
    expect(auth.retryable).toBe(false);
    expect(auth.message).toContain('OPENAI_API_KEY');
    expect(auth.message).not.toContain('sk-secret-value');
  });

  it('reports an unreachable server as retryable, naming the URL', async () => {
    await server.stop();
    const error = (await provider().complete(request()).catch((e: unknown) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(`${baseUrl}/chat/completions`);
    await fixture.restart(); // the fixture's afterEach stops a running one
  });

  it('abandons a request when the step is cancelled', async () => {
    server.handler = () => ({ kind: 'hang' });
    const abort = new AbortController();
    const pending = provider().complete(request({ signal: abort.signal }));
    await server.waitFor(() => true);
    abort.abort();
    await expect(pending).rejects.toBeInstanceOf(StepAbortedError);
  });
});

describe('provider selection from the spec', () => {
  const specWith = (runtime: string) => loadSpecText(chainSpec({ steps: 1, provider: 'openai' }).replace(/runtime:\n(  .*\n)+/, `runtime:\n${runtime}\n`), 'spec.yaml').spec;

  it('takes the base URL from runtime.host, else OPENAI_BASE_URL', async () => {
    const fromEnv = createProvider(specWith('  provider: openai\n  model_id: m'), { OPENAI_BASE_URL: baseUrl });
    await fromEnv.complete(request());
    expect(server.requests).toHaveLength(1);
    const fromHost = createProvider(specWith(`  provider: openai\n  model_id: m\n  host: ${baseUrl}`), { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    await fromHost.complete(request());
    expect(server.requests).toHaveLength(2);
  });

  it('tells an unreachable Ollama to check runtime.host, never OPENAI_BASE_URL', async () => {
    const root = baseUrl.replace(/\/v1$/, '');
    await server.stop();
    const ollama = createProvider(specWith(`  provider: ollama\n  model_id: llama3.2\n  host: ${root}`), { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    const error = (await ollama.complete(request()).catch((e: unknown) => e)) as ProviderError;
    expect(error.message).toContain(`cannot reach ${baseUrl}/chat/completions (connection refused, ECONNREFUSED); is Ollama running ('ollama serve')? runtime.host in the spec says where it listens`);
    expect(error.message).not.toContain('OPENAI_BASE_URL');
    expect(error.advice).toMatchObject({ retryLimit: 1 });
    const fromEnv = createProvider(specWith('  provider: openai\n  model_id: m'), { OPENAI_BASE_URL: baseUrl });
    expect(((await fromEnv.complete(request()).catch((e: unknown) => e)) as Error).message).toContain('check OPENAI_BASE_URL and that the server is running');
    await fixture.restart();
  });

  it("uses an agent's own model_id over the runtime's", async () => {
    const spec = specWith(`  provider: openai\n  model_id: default-model\n  host: ${baseUrl}`);
    spec.agents.worker!.model_id = 'agent-model';
    await createProvider(spec, {}).complete(request());
    await createProvider(spec, {}).complete(request({ agent: 'other' }));
    expect(server.requests.map((r) => r.body.model)).toEqual(['agent-model', 'default-model']);
  });

  it('serves ollama through its OpenAI-compatible /v1 endpoint', async () => {
    const root = baseUrl.replace(/\/v1$/, '');
    const ollama = createProvider(specWith(`  provider: ollama\n  model_id: llama3.2\n  host: ${root}`), {});
    await ollama.complete(request());
    expect(server.requests[0]!.body.model).toBe('llama3.2');
  });
});
