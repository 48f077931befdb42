import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../source/engine/stop-errors.js';
import { OpenAiProvider } from '../../source/providers/openai-provider.js';
import { readEventStream, readRestMs } from '../../source/providers/event-stream.js';
import { openResponse, type JsonPost } from '../../source/providers/post-json.js';
import { answeringServers } from '../helpers/answering-server.js';

/**
 * Hostile review of the session that moved model calls onto node:http and made streams rest
 * between reads (source/providers/event-stream.ts, post-json.ts): each test is a defect it found,
 * red before its fix.
 */

/** A real HTTP server on 127.0.0.1 answering every request with `handler` (closed after each test). */
const listen = answeringServers();

const post = (url: string, signal = new AbortController().signal): JsonPost => ({ url, headers: {}, body: { stream: true }, signal, provider: 'openai', endpoint: url, unreachableHint: 'is the server running?' });
const openAiChunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;

describe('review: a stream that goes silent', () => {
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

const openAiEnd = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

describe('review: resting reads and a large answer', () => {
  it('an answer the server sends in one burst after the first words is read at the speed it arrives, not one socket read per rest', async () => {
    // A proxy that buffers the stream (nginx's proxy_buffering), a gateway replaying a cached answer,
    // a long tool call: 1 MB of answer that is all in the kernel's buffer at once.
    const burst = Array.from({ length: 1000 }, (_, i) => openAiChunk(`${'x'.repeat(1000)}${i}`)).join('') + openAiEnd;
    let sentAt = 0;
    const base = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(openAiChunk('first words '));
      setTimeout(() => {
        sentAt = performance.now();
        res.end(burst);
      }, 20);
    });
    const provider = new OpenAiProvider({ baseUrl: `${base}/v1`, model: 'm' });
    const result = await provider.complete({
      agent: 'a',
      step: '0',
      attempt: 1,
      context: {},
      messages: [{ role: 'user', content: 'hi' }],
      signal: new AbortController().signal,
      // A run view or --stream is watching: the stream rests between reads once this has been told something.
      onDelta: () => undefined,
    });
    const readMs = performance.now() - sentAt;
    expect(result.text.length).toBeGreaterThan(1_000_000);
    // Unrested it takes ~30 ms here; resting reads ~64 KB per readRestMs, so a megabyte takes ~2 s (2 MB: 4.4 s vs 63 ms).
    expect(readMs).toBeLessThan(5 * readRestMs);
  });
});

describe('review: the bytes a stream opens with', () => {
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

describe('review: silence before the answer, and keys that cannot be sent', () => {
  it('a server that accepts the call and never answers is dropped as retryable network trouble that says it was silent', async () => {
    const base = await listen(() => undefined);
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
    const base = await listen((res) => {
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
