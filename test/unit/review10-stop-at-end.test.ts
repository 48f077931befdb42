import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readEventStream } from '../../source/providers/event-stream.js';
import { openResponse, type JsonPost } from '../../source/providers/post-json.js';
import { StepAbortedError } from '../../source/engine/stop-errors.js';

// Hostile review (session 10), defect: a call stopped (its AbortSignal) from inside onEvent while the
// events of the socket read that ended the answer are handed on. Node has parsed the answer's end
// (the 'end' of the response is due on the next tick), the stop destroys the request and its socket
// with an AbortError emitted a tick later, and the response's 'end' hands the socket back to the
// agent first, taking Node's error listener off it: the socket's AbortError is an uncaught exception,
// which ends the process. The read also resolves, having handed on every event after the stop.

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** 40 pieces 3 ms apart and [DONE], chunked, kept alive, for every request. */
async function server(): Promise<string> {
  const s = createServer((socket) => {
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

describe('review 10: a call stopped from onEvent in the read that ends the answer', () => {
  // `rests`: the socket rests after the first read, so pieces 1-39 and the end arrive in one read;
  // without, the stop at [DONE] is in the last read.
  for (const [stopAt, rests] of [['p5', true], ['p39', true], ['[DONE]', false]] as const) {
    it(`settles as stopped, with no uncaught exception, when stopped at ${stopAt}${rests ? ' after a rest' : ''}`, async () => {
      const uncaught: unknown[] = [];
      const record = (error: unknown) => void uncaught.push(error);
      process.on('uncaughtException', record);
      try {
        const url = await server();
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
