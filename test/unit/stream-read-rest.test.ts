import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CompletionDelta } from '../../source/engine/provider.js';
import { ProviderError, StepAbortedError } from '../../source/engine/stop-errors.js';
import { AnthropicProvider } from '../../source/providers/anthropic-provider.js';
import { readEventStream, readRestMs } from '../../source/providers/event-stream.js';
import { OpenAiProvider } from '../../source/providers/openai-provider.js';
import { openResponse, type JsonPost } from '../../source/providers/post-json.js';
import { answeringServers } from '../helpers/answering-server.js';
import { streamServers, trustingTestCertificate } from '../helpers/stream-servers.js';

const listen = streamServers();

/** One call to an OpenAI-compatible server at `url` (its chat-completions URL), deltas to `onDelta`. */
const complete = (url: string, onDelta: (delta: CompletionDelta) => void) =>
  new OpenAiProvider({ baseUrl: url.replace('/chat/completions', ''), model: 'm' }).complete({
    agent: 'a',
    step: '0',
    attempt: 1,
    messages: [{ role: 'user', content: 'hi' }],
    context: {},
    signal: new AbortController().signal,
    onDelta,
  });

const post = (url: string, signal = new AbortController().signal): JsonPost => ({ url, headers: {}, body: { stream: true }, signal, provider: 'openai', endpoint: url, unreachableHint: 'is the server running?' });

/** `count` OpenAI chunks `gapMs` apart, then the end. */
function pieces(count: number, gapMs: number) {
  return (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const timer = setInterval(() => {
      if (i < count) return res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `p${i++} ` } }] })}\n\n`);
      clearInterval(timer);
      res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
    }, gapMs);
    res.on('close', () => clearInterval(timer));
  };
}

/**
 * Reads a stream: its events, and in how many bursts they came — events handed on within 2 ms of
 * the one before came in one read (counted from outside, as over TLS one read holds many records).
 */
async function read(url: string, rest: boolean, signal?: AbortSignal, onEvent: (count: number) => void = () => undefined) {
  const call = post(url, signal);
  const response = await openResponse(call);
  const events: string[] = [];
  let reads = 0;
  let last = -Infinity;
  await readEventStream(
    response,
    call,
    (event) => {
      const now = performance.now();
      if (now - last > 2) reads++;
      last = now;
      onEvent(events.push(event.data));
    },
    { spoke: () => rest },
  );
  return { reads, events };
}

describe('reading a stream that shows: the socket rests between reads', () => {
  it('reads 40 pieces sent 5 ms apart in a few reads, every event whole and in order', async () => {
    const server = await listen(pieces(40, 5));
    const { reads, events } = await read(server.url, true);
    expect(events).toHaveLength(42);
    expect(events.slice(0, 40).map((data) => (JSON.parse(data) as { choices: { delta: { content: string } }[] }).choices[0]!.delta.content)).toEqual(Array.from({ length: 40 }, (_, i) => `p${i} `));
    expect(events.at(-1)).toBe('[DONE]');
    // ~200 ms of pieces, a read at most every readRestMs (200 ms): a few reads, where each piece was a read of its own.
    expect(reads).toBeLessThanOrEqual(6);
  });

  it('over TLS too: the rest stops the TCP socket under it, and the answer still arrives whole', async () => {
    const server = await listen(pieces(40, 5), true);
    const { reads, events } = await trustingTestCertificate(() => read(server.url, true));
    expect(events).toHaveLength(42);
    expect(events.at(-1)).toBe('[DONE]');
    expect(reads).toBeLessThanOrEqual(6);
  });

  it('a connection goes back to the pool reading: the next answer on it arrives whole (an answer that ends in the read before a rest)', async () => {
    const server = await listen(pieces(12, 5));
    for (let call = 0; call < 3; call++) {
      const { events } = await read(server.url, true);
      expect(events).toHaveLength(14);
    }
    expect(server.connections()).toBe(1);
  });

  it('without rest every piece is read as it comes (the comparison that shows the rest is what batches)', async () => {
    const server = await listen(pieces(40, 5));
    const { reads, events } = await read(server.url, false);
    expect(events).toHaveLength(42);
    expect(reads).toBeGreaterThan(6);
  });

  it('a stop while the socket rests is StepAbortedError at once, and the connection closes', async () => {
    const server = await listen(pieces(1000, 5));
    const stop = new AbortController();
    let stoppedAt = 0;
    const reading = read(server.url, true, stop.signal, (count) => {
      if (count === 1) setTimeout(() => ((stoppedAt = performance.now()), stop.abort()), 10);
    });
    await expect(reading).rejects.toBeInstanceOf(StepAbortedError);
    // Not when the rest would have ended: the stop destroys the socket that rests.
    expect(performance.now() - stoppedAt).toBeLessThan(readRestMs);
    await server.closed; // the test's timeout is the failure if it never closes
  });

  it('the first words are never held back: an OpenAI stream rests only once it has said something', async () => {
    // OpenAI opens a stream with a chunk that says nothing (the role); the words follow.
    const server = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] })}\n\n`);
      setTimeout(() => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'first' } }] })}\n\n`), 10);
      setTimeout(() => res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`), 400);
    });
    const started = performance.now();
    let firstAt = 0;
    const deltas: CompletionDelta[] = [];
    const result = await complete(server.url, (delta) => {
      firstAt ||= performance.now();
      deltas.push(delta);
    });
    expect(result.text).toBe('first');
    expect(deltas).toEqual([{ kind: 'text', text: 'first' }]);
    // Sent 10 ms after the role chunk: read then, not after a rest of readRestMs.
    expect(firstAt - started).toBeLessThan(readRestMs);
  });
});

describe('what a stream says reaches the view a read at a time', () => {
  it('the pieces of one read go on as one delta: 40 pieces in a few deltas, the text whole and in order', async () => {
    const server = await listen(pieces(40, 5));
    const deltas: CompletionDelta[] = [];
    const result = await complete(server.url, (delta) => deltas.push(delta));
    const expected = Array.from({ length: 40 }, (_, i) => `p${i} `).join('');
    expect(result.text).toBe(expected);
    expect(deltas.map((delta) => (delta.kind === 'text' ? delta.text : '')).join('')).toBe(expected);
    // ~200 ms of pieces: the first read, then one a rest (readRestMs) — where each piece was a delta of its own.
    expect(deltas.length).toBeLessThanOrEqual(6);
  });

  it('a tool call that starts goes on after the text before it and before the text after it, in one read', async () => {
    const chunk = (delta: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
    const server = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        chunk({ content: 'Let me ' }) +
          chunk({ content: 'look. ' }) +
          chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'read_file', arguments: '' } }] }) +
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"a"}' } }] }) +
          chunk({ content: 'Done.' }) +
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`,
      );
    });
    const deltas: CompletionDelta[] = [];
    await complete(server.url, (delta) => deltas.push(delta));
    expect(deltas).toEqual([
      { kind: 'text', text: 'Let me look. ' },
      { kind: 'tool_call', name: 'read_file' },
      { kind: 'text', text: 'Done.' },
    ]);
  });
});

describe('a model server URL with a user or password', () => {
  it('is refused before anything is sent, naming the URL without them', async () => {
    let requests = 0;
    const server = await listen(() => requests++);
    const withCredentials = server.url.replace('http://', 'http://someone:hunter2-secret@');
    const failure = await openResponse(post(withCredentials)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as ProviderError).retryable).toBe(false);
    expect((failure as Error).message).toContain(server.url.replace('/v1/chat/completions', ''));
    expect((failure as Error).message).not.toContain('hunter2');
    expect(requests).toBe(0);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const openAiChunk = (delta: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
const openAiEnd = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;
const request = (onDelta?: (delta: CompletionDelta) => void, signal = new AbortController().signal) => ({ agent: 'a', step: '0', attempt: 1, messages: [{ role: 'user' as const, content: 'hi' }], context: {}, signal, onDelta });
const openAi = (origin: string) => new OpenAiProvider({ baseUrl: `${origin}/v1`, model: 'm' });
const textOf = (deltas: CompletionDelta[]) => deltas.map((delta) => (delta.kind === 'text' ? delta.text : '')).join('');

/** A small deterministic generator (tests must not depend on Math.random). */
function seeded(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

describe('a stream read in paused mode, resting two beats', () => {
  for (const secure of [false, true]) {
    for (const kind of ['openai', 'anthropic'] as const) {
      it(`${kind} over ${secure ? 'TLS' : 'HTTP'}: an answer cut at random bytes (multibyte characters and events split, a BOM, bursts past 16 KiB, pauses past a rest) arrives whole, its deltas in order, text before the tool call that follows it, on one kept-alive connection`, async () => {
        let plan: { parts: Buffer[]; delays: number[] } = { parts: [], delays: [] };
        const server = await listen(async (res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (let i = 0; i < plan.parts.length; i++) {
            if (plan.delays[i]) await sleep(plan.delays[i]!);
            res.write(plan.parts[i]);
          }
          res.end();
        }, secure);
        const words = ['hé', 'llo ', '😀', '漢字 ', 'x'.repeat(3000), 'plain ', '\u00a0', 'a\u0301 '];
        await trustingTestCertificate(async () => {
          for (let seed = 1; seed <= 5; seed++) {
            const random = seeded(seed * 7 + (secure ? 1 : 0) + (kind === 'openai' ? 0 : 100));
            const pieces = Array.from({ length: 5 + Math.floor(random() * 40) }, () => words[Math.floor(random() * words.length)]!);
            const tool = random() < 0.6;
            let sse = '';
            if (kind === 'openai') {
              if (random() < 0.4) sse += '\uFEFF';
              for (const piece of pieces) sse += openAiChunk({ content: piece });
              if (tool) sse += openAiChunk({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'read_file', arguments: '{}' } }] });
              sse += openAiEnd;
            } else {
              const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
              sse += event('message_start', { message: { usage: { input_tokens: 1 } } });
              sse += event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
              for (const piece of pieces) sse += event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
              if (tool) sse += event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 't', name: 'read_file', input: {} } });
              sse += event('message_delta', { usage: { output_tokens: 3 } }) + event('message_stop', {});
            }
            const bytes = Buffer.from(sse);
            plan = { parts: [], delays: [] };
            for (let at = 0; at < bytes.length; ) {
              const size = 1 + Math.floor(random() * (random() < 0.1 ? 40_000 : 300));
              plan.parts.push(bytes.subarray(at, at + size));
              at += size;
              plan.delays.push(random() < 0.04 ? Math.floor(random() * 250) : random() < 0.3 ? Math.floor(random() * 4) : 0);
            }
            const deltas: CompletionDelta[] = [];
            const provider = kind === 'openai' ? openAi(server.origin) : new AnthropicProvider({ baseUrl: server.origin, model: 'm', apiKey: 'k' } as ConstructorParameters<typeof AnthropicProvider>[0]);
            const result = await provider.complete(request((delta) => deltas.push(delta)));
            expect(result.text, `seed ${seed}`).toBe(pieces.join(''));
            expect(textOf(deltas), `seed ${seed}`).toBe(result.text);
            const at = deltas.findIndex((delta) => delta.kind === 'tool_call');
            expect(at >= 0, `seed ${seed}`).toBe(tool);
            if (tool) expect(textOf(deltas.slice(0, at)), `seed ${seed}`).toBe(result.text);
          }
        });
        expect(server.connections()).toBe(1);
      }, 20_000);
    }
  }

  it('over TLS, answers of small pieces, a burst past 16 KiB and a pause past a rest, ending right after a rest begins: three on one connection, each whole', async () => {
    const server = await listen(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(openAiChunk({ content: 'a' }));
      await sleep(5);
      res.write(openAiChunk({ content: 'b' }));
      await sleep(30);
      res.write(openAiChunk({ content: 'x'.repeat(40_000) }));
      await sleep(5);
      res.write(openAiChunk({ content: 'c' }));
      await sleep(readRestMs + 50);
      res.write(openAiChunk({ content: 'y'.repeat(100_000) }) + openAiChunk({ content: 'd' }));
      await sleep(10);
      res.end(openAiEnd);
    }, true);
    await trustingTestCertificate(async () => {
      for (let call = 0; call < 3; call++) expect((await openAi(server.origin).complete(request(() => undefined))).text).toHaveLength(140_004);
    });
    expect(server.connections()).toBe(1);
  });

  it('an answer already whole in the buffers before anyone reads it (100 KB, the server closing the connection after) is read whole, and the next on the same pool too', async () => {
    const server = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(Array.from({ length: 10_000 }, (_, i) => `data: ${i}\n\n`).join(''));
    });
    for (let round = 0; round < 2; round++) {
      const call = post(server.url);
      const response = await openResponse(call);
      await sleep(100);
      let events = 0;
      await readEventStream(response, call, () => void events++, { spoke: () => true });
      expect(events).toBe(10_000);
    }
    expect(server.connections()).toBe(1);
  });

  it('5 MB streamed in 50 KB pieces is read at the speed it comes, not a socket read per rest', async () => {
    const server = await listen(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(openAiChunk({ content: 'go' }));
      for (let i = 0; i < 100; i++) {
        res.write(openAiChunk({ content: 'z'.repeat(50_000) }));
        await sleep(1);
      }
      res.end(openAiEnd);
    });
    const started = performance.now();
    const result = await openAi(server.origin).complete(request(() => undefined));
    expect(result.text).toHaveLength(5_000_002);
    expect(performance.now() - started).toBeLessThan(10 * readRestMs);
  });

  it('over TLS, a stop while the socket rests is StepAbortedError at once, and the connection closes', async () => {
    const server = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(openAiChunk({ content: 'w ' })), 5);
      res.on('close', () => clearInterval(timer));
    }, true);
    const stop = new AbortController();
    let stoppedAt = 0;
    const deltas: CompletionDelta[] = [];
    const answer = trustingTestCertificate(() =>
      openAi(server.origin).complete(
        request((delta) => {
          // After the first read's words the socket rests; the stop comes inside the rest.
          if (deltas.push(delta) === 1) setTimeout(() => ((stoppedAt = performance.now()), stop.abort()), 20);
        }, stop.signal),
      ),
    );
    await expect(answer).rejects.toBeInstanceOf(StepAbortedError);
    expect(performance.now() - stoppedAt).toBeLessThan(readRestMs);
    await server.closed;
  });

  it('a server that drops the connection mid-answer while the socket rests: retryable ProviderError, within a rest', async () => {
    let droppedAt = 0;
    const server = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(openAiChunk({ content: 'first words' }));
      setTimeout(() => {
        res.write(openAiChunk({ content: ' and more' }));
        droppedAt = performance.now();
        res.socket?.destroy();
      }, 30);
    });
    const error = await openAi(server.origin)
      .complete(request(() => undefined))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect(performance.now() - droppedAt).toBeLessThan(readRestMs + 150);
  });

  it('an onDelta that throws, on a read\'s text or on the text flushed at the end, rejects the call with its error (never an uncaught exception), and the pool still serves the next call', async () => {
    let whole = false;
    const server = await listen(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (whole) return res.end(openAiChunk({ content: 'one read' }) + openAiEnd);
      res.write(openAiChunk({ content: 'first' }));
      await sleep(30);
      res.end(openAiChunk({ content: 'second' }) + openAiEnd);
    });
    const uncaught: unknown[] = [];
    const note = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', note);
    try {
      for (const end of [false, true]) {
        whole = end;
        const failing = openAi(server.origin).complete(
          request(() => {
            throw new Error(`the view failed${end ? ' at the end' : ''}`);
          }),
        );
        await expect(failing).rejects.toThrow(`the view failed${end ? ' at the end' : ''}`);
      }
      whole = false;
      expect((await openAi(server.origin).complete(request(() => undefined))).text).toBe('firstsecond');
      await sleep(readRestMs);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', note);
    }
  });

  it('OpenAI: text and tool calls interleaved in one read reach the view in the order they were said', async () => {
    const server = await listen((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        openAiChunk({ content: 'A' }) +
          // Content and a tool call in one chunk: the content was said first.
          openAiChunk({ content: 'B', tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'one', arguments: '' } }] }) +
          openAiChunk({ content: 'C' }) +
          openAiChunk({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'two', arguments: '{}' } }] }) +
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`,
      );
    });
    const deltas: CompletionDelta[] = [];
    await openAi(server.origin).complete(request((delta) => deltas.push(delta)));
    expect(deltas).toEqual([
      { kind: 'text', text: 'AB' },
      { kind: 'tool_call', name: 'one' },
      { kind: 'text', text: 'C' },
      { kind: 'tool_call', name: 'two' },
    ]);
  });
});

/** A real HTTP server on 127.0.0.1 answering every request with `handler`, at the base URL it returns (closed after each test). */
const listenAnswering = answeringServers();

describe('resting reads and a large answer', () => {
  it('an answer the server sends in one burst after the first words is read at the speed it arrives, not one socket read per rest', async () => {
    // A proxy that buffers the stream (nginx's proxy_buffering), a gateway replaying a cached answer,
    // a long tool call: 1 MB of answer that is all in the kernel's buffer at once.
    const burst = Array.from({ length: 1000 }, (_, i) => openAiChunk({ content: `${'x'.repeat(1000)}${i}` })).join('') + openAiEnd;
    let sentAt = 0;
    const base = await listenAnswering((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(openAiChunk({ content: 'first words ' }));
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
