import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CompletionDelta } from '../../source/engine/provider.js';
import { ProviderError, StepAbortedError } from '../../source/engine/stop-errors.js';
import { readEventStream, readRestMs } from '../../source/providers/event-stream.js';
import { OpenAiProvider } from '../../source/providers/openai-provider.js';
import { openResponse, type JsonPost } from '../../source/providers/post-json.js';
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
