import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../source/engine/stop-errors.js';
import { AnthropicProvider } from '../../source/providers/anthropic-provider.js';
import { readEventStream } from '../../source/providers/event-stream.js';
import { OpenAiProvider } from '../../source/providers/openai-provider.js';
import { openResponse, type JsonPost } from '../../source/providers/post-json.js';
import { answeringServers } from '../helpers/answering-server.js';

/**
 * Streams whose answer ended but whose last event never came (a server that keeps the connection
 * open with keep-alive comments), and streams of keep-alive comments alone: each held the run
 * until Ctrl+C, since every comment kept the connection from going silent.
 */

const listen = answeringServers();
const request = () => ({ agent: 'a', step: '0', attempt: 1, context: {}, messages: [{ role: 'user' as const, content: 'hi' }], signal: new AbortController().signal });
const data = (body: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(body)}\n\n`;

/** Keeps the connection open, a keep-alive comment every 50 ms, until the client goes. */
function pingForever(res: ServerResponse): void {
  const timer = setInterval(() => res.write(': ping\n\n'), 50);
  res.on('close', () => clearInterval(timer));
}

describe('a stream whose answer ended without its last event', () => {
  it('OpenAI: finish_reason and usage, never [DONE], kept open: the answer is taken whole within seconds, its usage counted', async () => {
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(data({ choices: [{ index: 0, delta: { content: 'complete answer' }, finish_reason: null }] }));
      res.write(data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
      res.write(data({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 3 } }));
      pingForever(res);
    });
    const started = performance.now();
    const result = await new OpenAiProvider({ baseUrl: `${base}/v1`, model: 'm' }).complete(request());
    expect(result.text).toBe('complete answer');
    expect(result.usage).toEqual({ input: 12, output: 3 });
    expect(performance.now() - started).toBeLessThan(6000);
  });

  it('Anthropic: a stop reason in message_delta, never message_stop, kept open: the answer is taken whole', async () => {
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(data({ type: 'message_start', message: { usage: { input_tokens: 20, output_tokens: 1 } } }, 'message_start'));
      res.write(data({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'));
      res.write(data({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'whole answer' } }, 'content_block_delta'));
      res.write(data({ type: 'content_block_stop', index: 0 }, 'content_block_stop'));
      res.write(data({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } }, 'message_delta'));
      pingForever(res);
    });
    const result = await new AnthropicProvider({ baseUrl: base, model: 'claude-test', apiKey: 'sk-ant-api03-ending-test-key' }).complete(request());
    expect(result.text).toBe('whole answer');
    expect(result.usage).toEqual({ input: 20, output: 4 });
  });
});

describe('a finish reason before the end of the answer', () => {
  it('on every chunk (some servers do): the answer is read to its end, never cut 3 s after the first', async () => {
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const timer = setInterval(() => {
        if (i < 4) return void res.write(data({ choices: [{ index: 0, delta: { content: `part${i++} ` }, finish_reason: 'stop' }] }));
        clearInterval(timer);
        res.end(`${data({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 4 } })}data: [DONE]\n\n`);
      }, 1200);
    });
    const result = await new OpenAiProvider({ baseUrl: `${base}/v1`, model: 'm' }).complete(request());
    expect(result.text).toBe('part0 part1 part2 part3 ');
    expect(result.usage).toEqual({ input: 10, output: 4 });
  });

  it('on a reasoning chunk, then a silent think longer than the grace, then the answer: the answer is kept', async () => {
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(data({ choices: [{ index: 0, delta: { reasoning_content: 'thinking' }, finish_reason: 'stop' }] }));
      setTimeout(() => res.end(`${data({ choices: [{ index: 0, delta: { content: 'the real answer' }, finish_reason: 'stop' }] })}data: [DONE]\n\n`), 3600);
    });
    expect((await new OpenAiProvider({ baseUrl: `${base}/v1`, model: 'm' }).complete(request())).text).toBe('the real answer');
  });
});

describe('a stream of keep-alive comments alone', () => {
  it('is dropped as silent, retryable, once no event came for the silence limit (shortened here)', async () => {
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      pingForever(res);
    });
    const url = `${base}/v1/chat/completions`;
    const post: JsonPost = { url, headers: {}, body: { stream: true }, signal: new AbortController().signal, provider: 'openai', endpoint: url, unreachableHint: 'is the server running?', silentAfterMs: 400 };
    const error = await readEventStream(await openResponse(post), post, () => undefined).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toContain('only keep-alive comments');
  });
});

describe('an Anthropic stream whose message_delta gives counts as null', () => {
  it('keeps the input count message_start gave (null is "not counted here", not zero)', async () => {
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(data({ type: 'message_start', message: { usage: { input_tokens: 1500, output_tokens: 1, cache_read_input_tokens: 0 } } }, 'message_start'));
      res.write(data({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'hi' } }, 'content_block_start'));
      res.write(data({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { input_tokens: null, output_tokens: 40, cache_creation_input_tokens: null, cache_read_input_tokens: null } }, 'message_delta'));
      res.end(data({ type: 'message_stop' }, 'message_stop'));
    });
    const result = await new AnthropicProvider({ baseUrl: base, model: 'claude-test', apiKey: 'sk-ant-api03-ending-test-key' }).complete(request());
    expect(result.usage).toEqual({ input: 1500, output: 40 });
  });
});

describe('a stream that says no answer at all', () => {
  it('OpenAI: a bare [DONE] is no answer (retryable, as a JSON one without content), never an empty step', async () => {
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: [DONE]\n\n');
    });
    const error = await new OpenAiProvider({ baseUrl: `${base}/v1`, model: 'm' }).complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toContain('streamed no answer');
  });

  it('OpenAI: an empty answer with its finish_reason is an answer', async () => {
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}data: [DONE]\n\n`);
    });
    expect((await new OpenAiProvider({ baseUrl: `${base}/v1`, model: 'm' }).complete(request())).text).toBe('');
  });

  it('Anthropic: message_start then message_stop is no answer; text deltas without content_block_start are kept', async () => {
    let calls = 0;
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(data({ type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } }, 'message_start'));
      if (calls++ === 0) return void res.end(data({ type: 'message_stop' }, 'message_stop'));
      res.write(data({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'kept ' } }, 'content_block_delta'));
      res.write(data({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'text' } }, 'content_block_delta'));
      res.end(data({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }, 'message_delta') + data({ type: 'message_stop' }, 'message_stop'));
    });
    const provider = new AnthropicProvider({ baseUrl: base, model: 'claude-test', apiKey: 'sk-ant-api03-ending-test-key' });
    const error = await provider.complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain('streamed no answer');
    expect((await provider.complete(request())).text).toBe('kept text');
  });
});

const post = (url: string, signal = new AbortController().signal): JsonPost => ({ url, headers: {}, body: { stream: true }, signal, provider: 'openai', endpoint: url, unreachableHint: 'is the server running?' });
const openAiChunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
const openAiEnd = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

describe('a stream that goes silent', () => {
  it('a stream that stalls after its first words ends as retryable network trouble once its connection has been idle past its idle timeout, instead of waiting forever', async () => {
    // The first words, then nothing, ever: a hung model server, a proxy that lost its upstream.
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(openAiChunk('first words'));
    });
    const call = post(`${base}/v1/chat/completions`);
    const response = await openResponse(call);
    const socket = response.body.socket!;
    let outcome: unknown = 'still waiting';
    readEventStream(response, call, () => undefined, { spoke: () => true }).then(
      () => (outcome = 'answered'),
      (error: unknown) => (outcome = error),
    );
    // A call is dropped once its connection has been silent for silentAnswerMs (300 s, as fetch's
    // undici bodyTimeout); the socket's timeout is shortened here only so the test is quick.
    socket.setTimeout(200);
    await once(socket, 'timeout');
    await expect.poll(() => outcome, { timeout: 1000 }).toBeInstanceOf(ProviderError);
    expect((outcome as ProviderError).retryable).toBe(true);
  });
});

describe('the bytes a stream opens with', () => {
  it('a stream that opens with a UTF-8 byte order mark (which server-sent events allow) keeps its first event: the answer is whole', async () => {
    // The BOM arrives as bytes EF BB BF. fetch's TextDecoder dropped it; the StringDecoder that replaced
    // it hands U+FEFF to eventsource-parser, which only strips a BOM it sees as three separate
    // characters, so the first line reads as a field named "\uFEFFdata" and its event is lost.
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.end(`\uFEFF${openAiChunk('Hello')}${openAiChunk(', world')}${openAiEnd}`);
    });
    const provider = new OpenAiProvider({ baseUrl: `${base}/v1`, model: 'm' });
    const result = await provider.complete({ agent: 'a', step: '0', attempt: 1, context: {}, messages: [{ role: 'user', content: 'hi' }], signal: new AbortController().signal });
    // Before the fix the call succeeded with ", world": a wrong answer, journaled as the step's result.
    expect(result.text).toBe('Hello, world');
  });
});
