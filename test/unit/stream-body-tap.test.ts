import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
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
