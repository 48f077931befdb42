import { describe, expect, it } from 'vitest';
import { StepAbortedError } from '../../source/engine/stop-errors.js';
import { readEventStream } from '../../source/providers/event-stream.js';
import { openResponse, type JsonPost } from '../../source/providers/post-json.js';
import { answeringServers } from '../helpers/answering-server.js';

/**
 * Issue 33: `--stream` into a pipe its reader has not emptied. The watcher of a stream says it cannot
 * take more (its flush returns a promise): the answer is read no further off the connection until
 * that settles, so what waits for a slow reader waits in the server, not in acode.
 */

const listen = answeringServers();
const piece = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(4096) } }] })}\n\n`;

/** A server that streams for ever, as fast as its client reads. */
async function endless(): Promise<{ url: string }> {
  const base = await listen((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const pump = () => {
      while (!res.destroyed && res.write(piece));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
  return { url: `${base}/v1/chat/completions` };
}

const elapse = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a stream whose watcher cannot take more', () => {
  it('reads nothing more off its connection until the watcher drains, however long past the silence limit, then reads on', async () => {
    const server = await endless();
    const stop = new AbortController();
    const call: JsonPost = { url: server.url, headers: {}, body: { stream: true }, signal: stop.signal, provider: 'openai', endpoint: server.url, unreachableHint: '' };
    const response = await openResponse(call);
    const socket = response.body.socket!;
    // The connection's and the events' silence limits (300 s) shortened once the answer is open: a hold outlasts both.
    socket.setTimeout(200);
    let drain: () => void = () => undefined;
    let holds = 0;
    let events = 0;
    const watch = {
      spoke: () => true,
      flush: () => {
        if (holds++ > 0) return undefined;
        return new Promise<void>((resolve) => (drain = resolve));
      },
    };
    let outcome: unknown = 'reading';
    readEventStream(response, { ...call, silentAfterMs: 200 }, () => void events++, watch).then(
      () => (outcome = 'ended'),
      (error: unknown) => (outcome = error),
    );
    await expect.poll(() => holds, { timeout: 5000 }).toBe(1);
    const heldAt = socket.bytesRead;
    const eventsAt = events;
    await elapse(1000);
    expect(outcome).toBe('reading');
    expect(socket.bytesRead).toBe(heldAt);
    expect(events).toBe(eventsAt);
    drain();
    await expect.poll(() => socket.bytesRead, { timeout: 5000 }).toBeGreaterThan(heldAt + 1024 * 1024);
    stop.abort();
    await expect.poll(() => outcome, { timeout: 5000 }).toBeInstanceOf(StepAbortedError);
  });

  it('a stop while held ends the call at once as stopped, without waiting for a drain that never comes', async () => {
    const server = await endless();
    const stop = new AbortController();
    const call: JsonPost = { url: server.url, headers: {}, body: { stream: true }, signal: stop.signal, provider: 'openai', endpoint: server.url, unreachableHint: '' };
    const response = await openResponse(call);
    let holds = 0;
    // A reader that never takes anything more.
    const watch = { spoke: () => true, flush: () => (holds++ > 0 ? undefined : new Promise<void>(() => undefined)) };
    let outcome: unknown = 'reading';
    readEventStream(response, call, () => undefined, watch).then(
      () => (outcome = 'ended'),
      (error: unknown) => (outcome = error),
    );
    await expect.poll(() => holds, { timeout: 5000 }).toBe(1);
    stop.abort();
    await expect.poll(() => outcome, { timeout: 1000 }).toBeInstanceOf(StepAbortedError);
    expect(response.body.socket?.destroyed ?? true).toBe(true);
  });
});
