import { beforeEach, describe, expect, it } from 'vitest';
import type { CompletionDelta, CompletionRequest } from '../../source/engine/provider.js';
import type { StepNotice } from '../../source/engine/step-notice.js';
import { ProviderError, RateLimitError, StepAbortedError } from '../../source/engine/stop-errors.js';
import { AnthropicProvider } from '../../source/providers/anthropic-provider.js';
import { OpenAiProvider } from '../../source/providers/openai-provider.js';
import { secrets } from '../../source/secrets/redactor.js';
import { anthropicError, anthropicServerPerTest } from '../helpers/anthropic-server.js';
import { chainSpec } from '../helpers/chain-spec.js';
import { executorFor } from '../helpers/engine-harness.js';
import { answerFor, openAiServerPerTest } from '../helpers/openai-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const openai = openAiServerPerTest();
const anthropic = anthropicServerPerTest();

function request(deltas: CompletionDelta[], overrides: Partial<CompletionRequest> = {}): CompletionRequest {
  return {
    agent: 'worker',
    step: '0',
    attempt: 1,
    messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'Step 0: hello' }],
    context: {},
    signal: new AbortController().signal,
    onDelta: (delta) => void deltas.push(delta),
    ...overrides,
  };
}

const failure = (p: Promise<unknown>) => p.then(() => expect.unreachable('the request should fail'), (e: unknown) => e as Error);
const text = (deltas: readonly CompletionDelta[]) => deltas.flatMap((d) => (d.kind === 'text' ? [d.text] : [])).join('');

describe('the OpenAI-compatible provider, streaming', () => {
  let baseUrl: string;
  beforeEach(() => ({ baseUrl } = openai.current()));
  const provider = () => new OpenAiProvider({ baseUrl, model: 'm1' });

  it('asks for a stream with usage and returns the whole answer once every piece has arrived', async () => {
    const { server } = openai.current();
    server.handler = () => ({ kind: 'answer', text: 'a streamed answer in many small pieces' });
    const deltas: CompletionDelta[] = [];
    const result = await provider().complete(request(deltas));
    expect(server.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(result).toEqual({ text: 'a streamed answer in many small pieces', usage: { input: 'Step 0: hello'.length, output: 38 } });
    // Told a read at a time (pieces that came together go on together): every word, once, in order.
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(text(deltas)).toBe(result.text);
  });

  it('tells each piece as it arrives, before the answer is whole', async () => {
    const { server } = openai.current();
    server.streamDelayMs = 40;
    server.handler = () => ({ kind: 'answer', text: 'first piece, then the rest of it' });
    const deltas: CompletionDelta[] = [];
    let whole = false;
    const call = provider().complete(request(deltas)).then(() => (whole = true));
    await expect.poll(() => deltas.length, { timeout: 3000 }).toBeGreaterThan(0);
    expect(whole).toBe(false);
    await call;
  });

  it('puts tool calls back together from fragments by index and tells each as it starts', async () => {
    const { server } = openai.current();
    server.handler = () => ({ kind: 'tool_calls', calls: [{ id: 'call_a', name: 'file_read', args: { path: 'notes.md' } }, { id: 'call_b', name: 'file_write', args: { path: 'out.md', content: 'x'.repeat(50) } }] });
    const deltas: CompletionDelta[] = [];
    const result = await provider().complete(request(deltas));
    expect(result.tool_calls).toEqual([{ id: 'call_a', name: 'file_read', args: { path: 'notes.md' } }, { id: 'call_b', name: 'file_write', args: { path: 'out.md', content: 'x'.repeat(50) } }]);
    expect(deltas.filter((d) => d.kind === 'tool_call')).toEqual([{ kind: 'tool_call', name: 'file_read' }, { kind: 'tool_call', name: 'file_write' }]);
  });

  it('a connection broken mid-stream is a retryable network failure, not an answer', async () => {
    openai.current().server.handler = () => ({ kind: 'cut', text: 'this answer never ends', after: 2 });
    const deltas: CompletionDelta[] = [];
    const error = await failure(provider().complete(request(deltas)));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect(error.message).toMatch(/broke while the answer streamed/);
    expect(text(deltas)).toBe('this answer neve');
  });

  it('a stream that ends without [DONE] or a finish reason is cut short (retryable)', async () => {
    openai.current().server.handler = () => ({ kind: 'cut', text: 'half an answer', after: 1, how: 'end' });
    const error = await failure(provider().complete(request([])));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect(error.message).toMatch(/ended before its end/);
  });

  it('an error object in the stream is classified as the failure it names', async () => {
    openai.current().server.handler = () => ({ kind: 'stream_error', after: 1, error: { error: { message: 'Rate limit reached, please try again in 250ms', code: 'rate_limit_exceeded' } } });
    const error = await failure(provider().complete(request([])));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(250);
    expect(error.message).toMatch(/error in the answer stream/);
  });

  it('a stop of the run mid-stream ends the call as stopped', async () => {
    const { server } = openai.current();
    server.streamDelayMs = 30;
    server.handler = () => ({ kind: 'answer', text: 'a long answer that the person stops halfway through' });
    const controller = new AbortController();
    const deltas: CompletionDelta[] = [];
    const call = failure(provider().complete(request(deltas, { signal: controller.signal })));
    await expect.poll(() => deltas.length, { timeout: 3000 }).toBeGreaterThan(1);
    controller.abort();
    expect(await call).toBeInstanceOf(StepAbortedError);
  });

  it('keeps the key in use out of the whole answer a server echoes it in', async () => {
    const key = 'sk-stream-echo-0123456789abcdef';
    secrets.register(key);
    openai.current().server.handler = () => ({ kind: 'answer', text: `your key is ${key}, split over pieces` });
    const result = await new OpenAiProvider({ baseUrl, model: 'm1', apiKey: key }).complete(request([]));
    expect(result.text).not.toContain('0123456789');
    expect(result.text).toContain('[REDACTED]');
  });

  it.each([true, false])('keeps the key in use out of tool-call arguments that echo it \\u-escaped (streamed: %s)', async (streamed) => {
    const key = 'sk-args-echo-0123456789abcdef';
    secrets.register(key);
    const escaped = [...`key is ${key}`].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const { server } = openai.current();
    server.handler = () => ({ kind: 'tool_calls', calls: [{ id: 'c1', name: 'file_write', args: {}, rawArgs: `{"path":"notes.md","content":"${escaped}"}` }] });
    const result = await new OpenAiProvider({ baseUrl, model: 'm1', apiKey: key, stream: streamed }).complete(request([]));
    expect(result.tool_calls).toEqual([{ id: 'c1', name: 'file_write', args: { path: 'notes.md', content: 'key is [REDACTED]' } }]);
  });
});

describe('the Anthropic provider, streaming', () => {
  let baseUrl: string;
  beforeEach(() => ({ baseUrl } = anthropic.current()));
  const provider = () => new AnthropicProvider({ baseUrl, model: 'claude-test', apiKey: 'sk-ant-api03-streaming-key' });

  it('asks for a stream and returns the whole answer with the usage of message_start and message_delta', async () => {
    const { server } = anthropic.current();
    server.handler = () => ({ kind: 'answer', text: 'streamed from Anthropic in pieces', usage: { input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 3 } });
    const deltas: CompletionDelta[] = [];
    const result = await provider().complete(request(deltas));
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(result).toEqual({ text: 'streamed from Anthropic in pieces', usage: { input: 15, output: 7 } });
    // Told a read at a time (pieces that came together go on together): every word, once, in order.
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(text(deltas)).toBe(result.text);
  });

  it('puts tool_use input back together from input_json_delta pieces and tells each call as it starts', async () => {
    anthropic.current().server.handler = () => ({ kind: 'tool_use', text: 'Reading it.', calls: [{ id: 'toolu_1', name: 'file_read', input: { path: 'notes.md' } }] });
    const deltas: CompletionDelta[] = [];
    const result = await provider().complete(request(deltas));
    expect(result).toMatchObject({ text: 'Reading it.', tool_calls: [{ id: 'toolu_1', name: 'file_read', args: { path: 'notes.md' } }] });
    expect(deltas.at(-1)).toEqual({ kind: 'tool_call', name: 'file_read' });
  });

  it('an error event mid-stream is classified by its type: overloaded waits, api_error retries', async () => {
    const { server } = anthropic.current();
    server.handler = () => ({ kind: 'stream_error', after: 2, error: anthropicError('overloaded_error', 'Overloaded') });
    expect(await failure(provider().complete(request([])))).toBeInstanceOf(RateLimitError);
    server.handler = () => ({ kind: 'stream_error', after: 2, error: anthropicError('api_error', 'Internal server error') });
    const error = await failure(provider().complete(request([])));
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
  });

  it('a stream cut before message_stop is a retryable failure', async () => {
    const { server } = anthropic.current();
    server.handler = () => ({ kind: 'cut', after: 2, how: 'end' });
    const ended = await failure(provider().complete(request([])));
    expect(ended.message).toMatch(/ended before message_stop/);
    server.handler = () => ({ kind: 'cut', after: 2 });
    const reset = await failure(provider().complete(request([])));
    expect((reset as ProviderError).retryable).toBe(true);
  });
});

describe('a step whose stream is cut', () => {
  it('is retried, and its answer is journaled once, whole — never the part that arrived first', async () => {
    const { server, baseUrl } = openai.current();
    const cwd = tempDir();
    let calls = 0;
    server.handler = (req) => (req.step === 1 && ++calls === 1 ? { kind: 'cut', text: answerFor(1, req.user), after: 2 } : { kind: 'answer' });
    const { executor, journal } = executorFor(chainSpec({ steps: 2, provider: 'openai', host: baseUrl }), { cwd });
    const notices: StepNotice[] = [];
    executor.onNotice((notice) => void notices.push(notice));
    const summary = await executor.run();
    expect(summary.status).toBe('completed');
    const completed = journal.events.filter((e) => e.type === 'step_completed' && e.step === '1');
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ attempt: 2, response: answerFor(1, server.requests.at(-1)!.user) });
    // The cut attempt was seen streaming, and nothing of it reached the journal.
    const cutText = notices.filter((n) => n.type === 'step_text' && n.step === '1' && n.attempt === 1).map((n) => (n.type === 'step_text' ? n.text : '')).join('');
    expect(cutText.length).toBeGreaterThan(0);
    expect(JSON.stringify(journal.events)).not.toMatch(/step_text|step_tool_call/);
    expect(journal.events.find((e) => e.type === 'step_failed' || e.type === 'resume_attempt')).toMatchObject({ type: 'resume_attempt', stop_reason: 'provider_error' });
  });
});
