import { beforeEach, describe, expect, it } from 'vitest';
import type { CompletionRequest, ToolSpec } from '../../source/engine/provider.js';
import { ContextExhaustedError, ProviderError, RateLimitError, StepAbortedError } from '../../source/engine/stop-errors.js';
import { AcodeError, ExitCode } from '../../source/errors/acode-error.js';
import { AnthropicProvider } from '../../source/providers/anthropic-provider.js';
import { createProvider } from '../../source/providers/create-provider.js';
import { loadSpecText } from '../../source/spec/load-spec.js';
import { anthropicError, anthropicServerPerTest, type AnthropicTestServer } from '../helpers/anthropic-server.js';
import { chainSpec } from '../helpers/chain-spec.js';

const fixture = anthropicServerPerTest();
let server: AnthropicTestServer;
let baseUrl: string;
beforeEach(() => ({ server, baseUrl } = fixture.current()));

const apiKey = 'sk-ant-api03-secret-value';

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

const provider = (extra: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}) => new AnthropicProvider({ baseUrl, model: 'claude-test', apiKey, ...extra });
const failure = (p: Promise<unknown>) => p.then(() => expect.unreachable('the request should fail'), (e: unknown) => e as Error);

describe('the Anthropic Messages provider', () => {
  it('posts to /v1/messages with the key and version headers and returns text with usage', async () => {
    server.handler = () => ({ kind: 'answer', text: 'hi there', usage: { input_tokens: 12, output_tokens: 3 } });
    const result = await provider({ temperature: 0.3, topP: 0.9 }).complete(request());
    expect(result).toEqual({ text: 'hi there', usage: { input: 12, output: 3 } });
    const sent = server.requests[0]!;
    expect(sent.headers['x-api-key']).toBe(apiKey);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toMatchObject({ model: 'claude-test', max_tokens: 4096, temperature: 0.3, top_p: 0.9 });
  });

  it('moves every system message to the top-level system field', async () => {
    await provider({ maxTokens: 64 }).complete(request({ messages: [{ role: 'system', content: 'be brief' }, { role: 'system', content: 'be kind' }, { role: 'user', content: 'Step 0: hi' }] }));
    const { body } = server.requests[0]!;
    expect(body.system).toBe('be brief\n\nbe kind');
    expect(body.max_tokens).toBe(64);
    expect(body.messages).toEqual([{ role: 'user', content: 'Step 0: hi' }]);
  });

  it('counts cached prompt tokens as input', async () => {
    server.handler = () => ({ kind: 'answer', text: 'ok', usage: { input_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 2 } });
    expect((await provider().complete(request())).usage).toEqual({ input: 1105, output: 2 });
  });

  it('turns tool_use blocks into tool calls and sends results back as one user turn', async () => {
    const tools: ToolSpec[] = [{ name: 'file_read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];
    const calls = [{ id: 'toolu_01A', name: 'file_read', input: { path: 'a.md' } }, { id: 'toolu_01B', name: 'file_read', input: { path: 'b.md' } }];
    server.handler = () => ({ kind: 'tool_use', text: 'Reading both.', calls });
    const first = await provider().complete(request({ tools }));
    expect(first).toEqual({ text: 'Reading both.', tool_calls: [{ id: 'toolu_01A', name: 'file_read', args: { path: 'a.md' } }, { id: 'toolu_01B', name: 'file_read', args: { path: 'b.md' } }], usage: { input: 10, output: 5 } });
    expect(server.requests[0]!.body.tools).toEqual([{ name: 'file_read', description: 'Read a file', input_schema: tools[0]!.parameters }]);

    server.handler = () => ({ kind: 'answer', text: 'done' });
    const messages = [
      ...request().messages,
      { role: 'assistant' as const, content: first.text, tool_calls: first.tool_calls },
      { role: 'tool' as const, tool_call_id: 'toolu_01A', name: 'file_read', content: 'alpha' },
      { role: 'tool' as const, tool_call_id: 'toolu_01B', name: 'file_read', content: 'beta' },
    ];
    expect((await provider().complete(request({ messages, tools }))).text).toBe('done');
    expect(server.requests[1]!.body.messages).toEqual([
      { role: 'user', content: 'Step 0: hello' },
      { role: 'assistant', content: [{ type: 'text', text: 'Reading both.' }, ...calls.map((c) => ({ type: 'tool_use', ...c }))] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: 'alpha' }, { type: 'tool_result', tool_use_id: 'toolu_01B', content: 'beta' }] },
    ]);
  });

  it('sends a tool-only assistant turn without an empty text block', async () => {
    const messages = [
      { role: 'user' as const, content: 'Step 0: go' },
      { role: 'assistant' as const, content: '', tool_calls: [{ id: 'toolu_1', name: 'ls', args: {} }] },
      { role: 'tool' as const, tool_call_id: 'toolu_1', name: 'ls', content: 'a.md' },
    ];
    await provider().complete(request({ messages }));
    expect(server.requests[0]!.body.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} }] });
  });

  it('turns 429 with retry-after into a rate limit with the wait in ms', async () => {
    server.handler = () => ({ kind: 'error', status: 429, headers: { 'retry-after': '7' }, body: anthropicError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit') });
    const error = await failure(provider().complete(request()));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(7000);
  });

  it('waits until anthropic-ratelimit-tokens-reset when there is no retry-after', async () => {
    const reset = new Date(Date.now() + 30_000).toISOString();
    const message = 'This request would exceed the rate limit for your organization of 50,000 input tokens per minute. Please reduce the prompt length or the maximum tokens requested, or try again later.';
    server.handler = () => ({ kind: 'error', status: 429, headers: { 'anthropic-ratelimit-tokens-reset': reset }, body: anthropicError('rate_limit_error', message) });
    const error = (await failure(provider().complete(request()))) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBeGreaterThan(25_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('treats 529 overloaded_error as a rate limit', async () => {
    server.handler = () => ({ kind: 'error', status: 529, body: anthropicError('overloaded_error', 'Overloaded') });
    await expect(provider().complete(request())).rejects.toBeInstanceOf(RateLimitError);
  });

  it('recognises "prompt is too long" as an exhausted context', async () => {
    server.handler = () => ({ kind: 'error', status: 400, body: anthropicError('invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum') });
    await expect(provider().complete(request())).rejects.toBeInstanceOf(ContextExhaustedError);
  });

  it('refuses a bad key without retrying, naming ANTHROPIC_API_KEY but never the key', async () => {
    server.handler = () => ({ kind: 'error', status: 401, body: anthropicError('authentication_error', 'invalid x-api-key') });
    const error = (await failure(provider().complete(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect(error.message).not.toContain(apiKey);
  });

  it('keeps the key out of every failure message', async () => {
    const answers = [
      { status: 429, body: anthropicError('rate_limit_error', 'rate limited') },
      { status: 500, body: anthropicError('api_error', 'Internal server error') },
      { status: 404, body: anthropicError('not_found_error', 'model: claude-test') },
    ];
    for (const answer of answers) {
      server.handler = () => ({ kind: 'error', ...answer });
      expect((await failure(provider().complete(request()))).message).not.toContain(apiKey);
    }
    await server.stop();
    expect((await failure(provider().complete(request()))).message).not.toContain(apiKey);
    await fixture.restart();
  });

  it('reports an unreachable server as retryable, naming the URL', async () => {
    await server.stop();
    const error = (await failure(provider().complete(request()))) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(`${baseUrl}/v1/messages`);
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

describe('anthropic selection from the spec', () => {
  const specWith = (runtime: string) => loadSpecText(chainSpec({ steps: 1, provider: 'anthropic' }).replace(/runtime:\n(  .*\n)+/, `runtime:\n${runtime}\n`), 'spec.yaml').spec;

  it('takes the base URL from runtime.host, else ANTHROPIC_BASE_URL, and the key from ANTHROPIC_API_KEY', async () => {
    await createProvider(specWith('  provider: anthropic\n  model_id: m'), { ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: apiKey }).complete(request());
    await createProvider(specWith(`  provider: anthropic\n  model_id: m\n  host: ${baseUrl}`), { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }).complete(request());
    expect(server.requests.map((r) => r.headers['x-api-key'])).toEqual([apiKey, undefined]);
  });

  it('tells an unreachable server to check the setting its URL came from', async () => {
    await server.stop();
    const failed = async (runtime: string, env: NodeJS.ProcessEnv) => ((await createProvider(specWith(runtime), env).complete(request()).catch((e: unknown) => e)) as Error).message;
    expect(await failed('  provider: anthropic\n  model_id: m', { ANTHROPIC_BASE_URL: baseUrl })).toContain('(connection refused, ECONNREFUSED); check ANTHROPIC_BASE_URL and that the server is running');
    expect(await failed(`  provider: anthropic\n  model_id: m\n  host: ${baseUrl}`, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' })).toContain('check runtime.host in the spec and that the server is running');
    await fixture.restart(); // the fixture's afterEach stops a running one
  });

  it("uses an agent's own model_id over the runtime's", async () => {
    const spec = specWith(`  provider: anthropic\n  model_id: default-model\n  host: ${baseUrl}`);
    spec.agents.worker!.model_id = 'agent-model';
    await createProvider(spec, {}).complete(request());
    await createProvider(spec, {}).complete(request({ agent: 'other' }));
    expect(server.requests.map((r) => r.body.model)).toEqual(['agent-model', 'default-model']);
  });

  it('refuses to start against api.anthropic.com without ANTHROPIC_API_KEY', () => {
    const make = () => createProvider(specWith('  provider: anthropic\n  model_id: claude-sonnet-4-5'), {});
    expect(make).toThrow(AcodeError);
    expect(make).toThrow(expect.objectContaining({ exitCode: ExitCode.usage, message: expect.stringContaining('ANTHROPIC_API_KEY') }));
  });
});
