import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError, StepAbortedError } from '../../source/engine/stop-errors.js';
import { readEventStream } from '../../source/providers/event-stream.js';
import { openResponse, type JsonPost, type ModelResponse } from '../../source/providers/post-json.js';
import { streamServers, trustingTestCertificate } from '../helpers/stream-servers.js';

const listen = streamServers();

const post = (url: string, stream: boolean, signal = new AbortController().signal): JsonPost => ({ url, headers: {}, body: { stream }, signal, provider: 'openai', endpoint: url, unreachableHint: 'is the server running?' });

const piece = (i: number) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `p${i} ` } }] })}\n\n`;

/** A streamed answer of `count` pieces `gapMs` apart, or (for a call that does not stream) one JSON body. */
function answers(count: number, gapMs: number) {
  return (res: ServerResponse, stream: boolean) => {
    if (!stream) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ whole: 'x'.repeat(5000) }));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const timer = setInterval(() => {
      if (i < count) return res.write(piece(i++));
      clearInterval(timer);
      res.end('data: [DONE]\n\n');
    }, gapMs);
    res.on('close', () => clearInterval(timer));
  };
}

/** Chunks the response's own stream was handed while `run` read it (Node's parser pushes each HTTP chunk of a body there). */
async function pushedDuring(response: ModelResponse, run: () => Promise<void>): Promise<number> {
  const body = response.body as ModelResponse['body'] & { push(chunk: unknown): boolean };
  const push = body.push.bind(body);
  let pushed = 0;
  body.push = (chunk: unknown) => {
    if (chunk !== null) pushed++;
    return push(chunk);
  };
  await run();
  return pushed;
}

async function readAll(response: ModelResponse, call: JsonPost): Promise<string[]> {
  const events: string[] = [];
  await readEventStream(response, call, (event) => void events.push(event.data), { spoke: () => true });
  return events;
}

describe('a streamed answer is taken off Node\'s HTTP parser, not pushed through the response\'s stream a chunk at a time', () => {
  for (const secure of [false, true]) {
    it(`takes every chunk of a 60-piece answer at the parser${secure ? ' (over TLS)' : ''}: the response's stream is handed none of them, and every event arrives in order`, async () => {
      const server = await listen((res) => answers(60, 2)(res, true), secure);
      await trustingTestCertificate(async () => {
        const call = post(server.url, true);
        const response = await openResponse(call);
        let events: string[] = [];
        const pushed = await pushedDuring(response, async () => {
          events = await readAll(response, call);
        });
        expect(events).toEqual([...Array.from({ length: 60 }, (_, i) => piece(i).slice(6, -2)), '[DONE]']);
        expect(pushed).toBe(0);
      });
    });
  }

  it('puts the parser back: the next answer on the same kept-alive connection, one that does not stream, is read whole', async () => {
    let calls = 0;
    const server = await listen((res) => answers(30, 2)(res, calls++ === 0));
    const streamed = post(server.url, true);
    const response = await openResponse(streamed);
    const parser = (response.body.socket as unknown as { parser: Record<number, { name?: string } | null> }).parser;
    const onBody = () => Object.values(parser).find((callback) => callback?.name === 'parserOnBody');
    const original = onBody();
    expect(original).toBeDefined();
    expect(await readAll(response, streamed)).toHaveLength(31);
    expect(onBody()).toBe(original);
    const whole = await openResponse(post(server.url, false));
    const text = await new Promise<string>((resolve, reject) => {
      let body = '';
      whole.body.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve(body)).on('error', reject);
    });
    expect(JSON.parse(text)).toEqual({ whole: 'x'.repeat(5000) });
    expect(server.connections()).toBe(1);
  });

  it('puts the parser back when the call is stopped midway: a new call reads its answer whole', async () => {
    const server = await listen((res) => answers(200, 5)(res, true));
    const stop = new AbortController();
    const first = post(server.url, true, stop.signal);
    const reading = readEventStream(await openResponse(first), first, () => stop.abort(), { spoke: () => true });
    await expect(reading).rejects.toThrow();
    const next = post(server.url, true);
    expect(await readAll(await openResponse(next), next)).toHaveLength(201);
  });

  it('reads the answer off the response\'s stream where the parser is not laid out as the tap expects (another Node)', async () => {
    const server = await listen((res) => answers(40, 2)(res, true));
    const call = post(server.url, true);
    const response = await openResponse(call);
    // The body callback under another name: the tap does not find it, and Node's own parsing goes on through it.
    const parser = (response.body.socket as unknown as { parser: Record<number, unknown> }).parser;
    const slot = Object.keys(parser).find((key) => (parser[Number(key)] as { name?: string } | null)?.name === 'parserOnBody');
    expect(slot).toBeDefined();
    const original = parser[Number(slot)] as (this: unknown, chunk: Buffer) => void;
    parser[Number(slot)] = function renamedOnBody(this: unknown, chunk: Buffer) {
      original.call(this, chunk);
    };
    let events: string[] = [];
    const pushed = await pushedDuring(response, async () => {
      events = await readAll(response, call);
    });
    parser[Number(slot)] = original;
    expect(events).toHaveLength(41);
    expect(events.at(-1)).toBe('[DONE]');
    expect(pushed).toBeGreaterThan(1);
  });
});

// ————————————————————————————————————————— byte boundaries anywhere
// Real loopback servers (plain TCP and TLS on 127.0.0.1) that write an HTTP answer byte for byte as a
// script says, so HTTP chunks, socket reads, UTF-8 characters, CRLFs and a BOM are split wherever a test wants.

const require = createRequire(import.meta.url);
/** Node's pool of HTTP parsers (the legacy public module `_http_common`): a wrapper left on one would serve every later request. */
const { parsers } = require('_http_common') as { parsers: { list: Record<number, unknown>[] } };

const tlsOptions = { cert: readFileSync(new URL('../fixtures/tls/cert.pem', import.meta.url)), key: readFileSync(new URL('../fixtures/tls/key.pem', import.meta.url)) };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Request {
  body: unknown;
  socket: Socket;
}
type Answer = (request: Request, write: (bytes: Buffer | string) => void, end: () => void) => void | Promise<void>;

const servers: (NetServer | TlsServer)[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A raw HTTP/1.1 server: it reads each request (content-length bodies, kept alive) and lets `answer` write the bytes of the response itself. */
async function rawServer(answer: Answer, secure = false): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const onSocket = (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    let busy = false;
    const next = async () => {
      if (busy) return;
      const head = pending.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(pending.subarray(0, head).toString('latin1'))?.[1] ?? 0);
      if (pending.length < head + 4 + length) return;
      const body = JSON.parse(pending.subarray(head + 4, head + 4 + length).toString('utf8') || 'null') as unknown;
      pending = pending.subarray(head + 4 + length);
      busy = true;
      await answer(
        { body, socket },
        (bytes) => {
          if (!socket.destroyed) socket.write(bytes);
        },
        () => socket.end(),
      );
      busy = false;
      void next();
    };
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      void next();
    });
  };
  const server = secure ? createTlsServer(tlsOptions, onSocket) : createNetServer(onSocket);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}/v1/chat/completions`, connections: () => connections };
}

const rawPost = (url: string, body: unknown = { stream: true }, signal = new AbortController().signal): JsonPost => ({ url, headers: {}, body, signal, provider: 'openai', endpoint: url, unreachableHint: 'is the server running?' });

/** A small seeded random, so a failure names its seed. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** An SSE answer with multi-byte characters, CRLF and LF line ends, multi-line events, comments, a BOM (maybe). */
function sseText(rnd: () => number, events: number, bom: boolean): string {
  const words = ['é', '漢字', '👍', 'a', 'ß', '—', '\u0301', ' ', 'data', '\\n', 'ｶﾞ', '🇫🇷'];
  let text = bom ? '\uFEFF' : '';
  for (let i = 0; i < events; i++) {
    const eol = rnd() < 0.5 ? '\r\n' : rnd() < 0.5 ? '\n' : '\r';
    let data = `${i}:`;
    for (let w = 0; w < 1 + Math.floor(rnd() * 6); w++) data += words[Math.floor(rnd() * words.length)]!;
    if (rnd() < 0.2) text += `: keep-alive${eol}`;
    if (rnd() < 0.2) text += `event: piece${eol}`;
    text += `data: ${data}${eol}`;
    if (rnd() < 0.2) text += `data: second line ${i}${eol}`;
    text += eol;
  }
  return `${text}data: [DONE]\n\n`;
}

/** What the events of `text` are, parsed whole (the BOM off, as a browser's EventSource takes it). */
function eventsOf(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text.replace(/^\uFEFF/, ''));
  return events;
}

/** Splits `bytes` at `cuts` random places. */
function split(rnd: () => number, bytes: Buffer, cuts: number): Buffer[] {
  const at = [...new Set(Array.from({ length: cuts }, () => 1 + Math.floor(rnd() * (bytes.length - 1))))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    parts.push(bytes.subarray(from, to));
    from = to;
  }
  return parts.filter((part) => part.length > 0);
}

type Framing = 'chunked' | 'length' | 'close';

/** The whole HTTP response for `text`, its body framed as `framing` says (chunked: HTTP chunks cut at random places, through characters). */
function httpResponse(rnd: () => number, text: string, framing: Framing): Buffer {
  const body = Buffer.from(text, 'utf8');
  if (framing === 'length') return Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${body.length}\r\n\r\n`), body]);
  if (framing === 'close') return Buffer.concat([Buffer.from('HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\n\r\n'), body]);
  const chunks = split(rnd, body, 12).map((part) => Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]));
  return Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'), ...chunks, Buffer.from('0\r\n\r\n')]);
}

/** Every parser in Node's pool still has Node's own body callback: no wrapper of a finished read is left on one. */
function poolIsClean(): void {
  for (const parser of parsers.list) {
    const names = Object.values(parser)
      .filter((value): value is { name: string } => typeof value === 'function')
      .map((value) => value.name);
    expect(names).toContain('parserOnBody');
    expect(names).not.toContain('onBody');
  }
}

async function readAllEvents(response: ModelResponse, call: JsonPost, spoke = false): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  await readEventStream(response, call, (event) => void events.push(event), { spoke: () => spoke });
  return events;
}

/** A plain JSON answer (a call that does not stream) of `size` bytes, content-length framed. */
function jsonResponse(size: number): Buffer {
  const body = JSON.stringify({ whole: 'x'.repeat(size) });
  return Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

async function readWhole(response: ModelResponse): Promise<string> {
  let text = '';
  for await (const chunk of response.body) text += (chunk as Buffer).toString('utf8');
  return text;
}

describe('a streamed answer taken off Node\'s HTTP parser, byte boundaries anywhere', () => {
  for (const secure of [false, true]) {
    for (const framing of ['chunked', 'length', 'close'] as const) {
      it(`reads ${framing} answers written in random pieces (UTF-8, CRLF, CR, BOM split anywhere) whole and in order${secure ? ' over TLS' : ''}, and leaves Node's parsers as it found them`, async () => {
        const scripts = new Map<number, Buffer[]>();
        const server = await rawServer(async ({ body }, write, end) => {
          const { seed } = body as { seed: number };
          for (const part of scripts.get(seed)!) {
            write(part);
            await sleep(1);
          }
          if (framing === 'close') end();
        }, secure);
        const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
        process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
        try {
          for (let seed = 1; seed <= 12; seed++) {
            const rnd = random(seed * 7919 + (secure ? 1 : 0) + framing.length);
            const text = sseText(rnd, 4 + Math.floor(rnd() * 20), seed % 3 === 0);
            scripts.set(seed, split(rnd, httpResponse(rnd, text, framing), 2 + Math.floor(rnd() * 25)));
            const call = rawPost(server.url, { stream: true, seed });
            const response = await openResponse(call);
            // Some answers are read only once they are all in (the response holds them already).
            if (seed % 4 === 0) await sleep(60);
            expect(await readAllEvents(response, call, seed % 5 === 0), `seed ${seed}`).toEqual(eventsOf(text));
            poolIsClean();
          }
        } finally {
          if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
          else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
        }
      });
    }
  }

  it('reads an answer sent in one write before the read begins, then a JSON answer on the same connection', async () => {
    const text = sseText(random(5), 30, true);
    let calls = 0;
    const server = await rawServer((_request, write) => write(calls++ === 0 ? httpResponse(random(6), text, 'chunked') : jsonResponse(70_000)));
    const call = rawPost(server.url);
    const response = await openResponse(call);
    await sleep(100);
    expect(await readAllEvents(response, call, true)).toEqual(eventsOf(text));
    const whole = await openResponse(rawPost(server.url, { stream: false }));
    expect(JSON.parse(await readWhole(whole))).toEqual({ whole: 'x'.repeat(70_000) });
    expect(server.connections()).toBe(1);
    poolIsClean();
  });
  it('reads a 300 KB answer that was all in before the read began (Node paused the socket at 16 KiB of body), then a JSON answer on the same connection', async () => {
    const text = sseText(random(9), 4000, false);
    expect(Buffer.byteLength(text)).toBeGreaterThan(100_000);
    let calls = 0;
    const server = await rawServer((_request, write) => write(calls++ === 0 ? httpResponse(random(10), text, 'chunked') : jsonResponse(20_000)));
    const call = rawPost(server.url);
    const response = await openResponse(call);
    await sleep(150);
    expect(await readAllEvents(response, call, true)).toEqual(eventsOf(text));
    const whole = await openResponse(rawPost(server.url, { stream: false }));
    expect(JSON.parse(await readWhole(whole))).toEqual({ whole: 'x'.repeat(20_000) });
    expect(server.connections()).toBe(1);
    poolIsClean();
  });
});

describe('Node\'s pooled parsers while other answers are in flight', () => {
  it('reads concurrent streamed answers and JSON answers on one agent, starts a call from the last event of another, and leaves no wrapper on a pooled parser', async () => {
    const server = await rawServer(async ({ body }, write) => {
      const { stream, n } = body as { stream: boolean; n: number };
      if (!stream) return write(jsonResponse(1000 + n * 5000));
      write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      for (let i = 0; i < 15; i++) {
        const piece = `data: ${n}-${i} é漢\n\n`;
        write(`${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`);
        await sleep(2 + (n % 3));
      }
      write(`e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n`);
    });
    const expected = (n: number) => [...Array.from({ length: 15 }, (_, i) => `${n}-${i} é漢`), '[DONE]'];
    const started: Promise<unknown>[] = [];
    const streamed = async (n: number, chain: boolean) => {
      const call = rawPost(server.url, { stream: true, n });
      const response = await openResponse(call);
      const events: string[] = [];
      await readEventStream(
        response,
        call,
        (event) => {
          events.push(event.data);
          // A call started from inside the last event: its request takes a parser while this read has not settled.
          if (chain && event.data === '[DONE]') started.push(streamed(n + 100, false), whole(n + 100));
        },
        { spoke: () => n % 2 === 0 },
      );
      expect(events).toEqual(expected(n));
    };
    const whole = async (n: number) => {
      const response = await openResponse(rawPost(server.url, { stream: false, n }));
      expect(JSON.parse(await readWhole(response))).toEqual({ whole: 'x'.repeat(1000 + n * 5000) });
    };
    for (let round = 0; round < 3; round++) {
      await Promise.all([streamed(1, true), streamed(2, true), whole(3), streamed(4, false), whole(5), streamed(6, true)]);
      await Promise.all(started.splice(0));
      poolIsClean();
    }
  });
});

describe('a read stopped, refused or broken at any moment', () => {
  /** 40 pieces 3 ms apart, kept alive. */
  const pieces = (write: (bytes: string) => void) =>
    (async () => {
      write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      for (let i = 0; i < 40; i++) {
        const piece = `data: p${i}\n\n`;
        write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
        await sleep(3);
      }
      write(`e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n`);
    })();

  for (const moment of [-1, 0, 1, 5, 20, 39, 'rest', 'head'] as const) it(`settles (stopped) when the call is stopped at moment ${moment} (after that event, in a read that is not the answer's last; during a rest; before the read begins); the next call on the agent reads whole`, async () => {
    const server = await rawServer(({ body }, write) => ((body as { stream: boolean }).stream ? pieces(write) : write(jsonResponse(100))));
    {
      const stop = new AbortController();
      const call = rawPost(server.url, { stream: true }, stop.signal);
      const response = await openResponse(call);
      if (moment === 'head') stop.abort();
      let after = 0;
      const reading = readEventStream(
        response,
        call,
        (event) => {
          if (stop.signal.aborted) after++;
          if (event.data === `p${moment}`) stop.abort();
        },
        // Resting only for the stop during a rest: else every piece is a read of its own, and the stop is never in the read that ends the answer ('a call stopped from onEvent in the read that ends the answer', below).
        { spoke: () => moment === 'rest' },
      );
      if (moment === 'rest') setTimeout(() => stop.abort(), 120);
      if (moment === -1) setTimeout(() => stop.abort(), 0);
      await expect(reading, `moment ${moment}`).rejects.toBeInstanceOf(StepAbortedError);
      expect(after, `events after the stop (moment ${moment})`).toBeLessThanOrEqual(40);
      await sleep(20);
      poolIsClean();
      const next = rawPost(server.url);
      expect((await readAllEvents(await openResponse(next), next)).map((event) => event.data).at(-1)).toBe('[DONE]');
    }
  });

  it('hands on no event after onEvent threw, drops the connection, and leaves the parser as it was', async () => {
    // Every piece is in one socket read: the throw is in the middle of what one read brought.
    const server = await rawServer(({ body }, write) => {
      if (!(body as { stream: boolean }).stream) return write(jsonResponse(100));
      let all = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
      for (let i = 0; i < 30; i++) {
        const piece = `data: p${i}\n\n`;
        all += `${piece.length.toString(16)}\r\n${piece}\r\n`;
      }
      // The first piece alone (the read begins with it), the rest in one write a moment later.
      const first = all.indexOf('data: p1') - 3;
      write(all.slice(0, first));
      setTimeout(() => write(`${all.slice(first)}e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n`), 30);
    });
    const call = rawPost(server.url);
    const response = await openResponse(call);
    const seen: string[] = [];
    const reading = readEventStream(response, call, (event) => {
      seen.push(event.data);
      if (event.data === 'p7') throw new Error('bad event');
    });
    await expect(reading).rejects.toThrow('bad event');
    await sleep(100);
    expect(seen.at(-1)).toBe('p7');
    poolIsClean();
    const next = rawPost(server.url, { stream: false });
    expect(JSON.parse(await readWhole(await openResponse(next)))).toEqual({ whole: 'x'.repeat(100) });
  });

  it('refuses an event over 16 Mi characters, whoever split it, and the agent reads the next call whole', async () => {
    const server = await rawServer(async ({ body }, write) => {
      if (!(body as { stream: boolean }).stream) return write(jsonResponse(100));
      write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      const piece = `data: ${'é'.repeat(512 * 1024)}`;
      for (let i = 0; i < 40; i++) {
        write(`${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`);
        await sleep(1);
      }
    });
    const call = rawPost(server.url);
    await expect(readAllEvents(await openResponse(call), call)).rejects.toBeInstanceOf(ProviderError);
    poolIsClean();
    const next = rawPost(server.url, { stream: false });
    expect(JSON.parse(await readWhole(await openResponse(next)))).toEqual({ whole: 'x'.repeat(100) });
  });

  it('breaks (retryable) when the server closes midway, in the middle of a chunk and of a character', async () => {
    for (const secure of [false, true]) {
      const server = await rawServer(async (_request, write, end) => {
        write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
        write('10\r\ndata: one\n\n\r\n');
        await sleep(5);
        write(Buffer.concat([Buffer.from('20\r\ndata: tw'), Buffer.from('漢').subarray(0, 2)]));
        await sleep(5);
        end();
      }, secure);
      const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
      try {
        const call = rawPost(server.url);
        const events: string[] = [];
        const reading = readEventStream(await openResponse(call), call, (event) => void events.push(event.data), { spoke: () => true });
        await expect(reading).rejects.toMatchObject({ retryable: true });
        expect(events).toEqual(['one']);
        poolIsClean();
      } finally {
        if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
        else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
      }
    }
  });
});

// A call stopped (its AbortSignal) from inside onEvent while the events of the socket read that ended
// the answer are handed on. Node has parsed the answer's end (the 'end' of the response is due on the
// next tick), the stop destroys the request and its socket with an AbortError emitted a tick later,
// and the response's 'end' hands the socket back to the agent first, taking Node's error listener off
// it: the socket's AbortError was an uncaught exception, which ended the process. The read also
// resolved, having handed on every event after the stop.

/** 40 pieces 3 ms apart and [DONE], chunked, kept alive, for every request. */
async function piecesServer(): Promise<string> {
  const s = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('data', async (data) => {
      if (!data.includes('\r\n\r\n')) return;
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      for (let i = 0; i < 40; i++) {
        const piece = `data: p${i}\n\n`;
        socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
        await sleep(3);
      }
      socket.write('e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n');
    });
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1/chat/completions`;
}

describe('a call stopped from onEvent in the read that ends the answer', () => {
  // `rests`: the socket rests after the first read, so pieces 1-39 and the end arrive in one read;
  // without, the stop at [DONE] is in the last read.
  for (const [stopAt, rests] of [['p5', true], ['p39', true], ['[DONE]', false]] as const) {
    it(`settles as stopped, with no uncaught exception, when stopped at ${stopAt}${rests ? ' after a rest' : ''}`, async () => {
      const uncaught: unknown[] = [];
      const record = (error: unknown) => void uncaught.push(error);
      process.on('uncaughtException', record);
      try {
        const url = await piecesServer();
        const stop = new AbortController();
        const call: JsonPost = { url, headers: {}, body: { stream: true }, signal: stop.signal, provider: 'openai', endpoint: url, unreachableHint: '' };
        const response = await openResponse(call);
        const afterStop: string[] = [];
        const outcome = await readEventStream(
          response,
          call,
          (event) => {
            if (stop.signal.aborted) afterStop.push(event.data);
            if (event.data === stopAt) stop.abort();
          },
          { spoke: () => rests },
        ).then(
          () => 'resolved',
          (error: unknown) => error,
        );
        await sleep(50);
        expect(uncaught.map(String)).toEqual([]);
        // Stopped: StepAbortedError, and nothing handed on after the stop (the answer is dropped anyway).
        // Stopped after the last event, a read that resolves with the whole answer is as good.
        if (stopAt !== '[DONE]' || outcome !== 'resolved') expect(outcome).toBeInstanceOf(StepAbortedError);
        expect(afterStop).toEqual([]);
      } finally {
        process.off('uncaughtException', record);
      }
    });
  }
});
