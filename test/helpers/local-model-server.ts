import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';

/** A reply body sent exactly as written (a proxy's HTML page, hand-made JSON), instead of JSON-encoded. */
export class RawBody {
  constructor(
    readonly text: string,
    readonly contentType = 'text/html',
  ) {}
}

/**
 * A real HTTP server on 127.0.0.1 for a model provider's protocol: it records every request, lets
 * tests wait for one, and can leave a reply hanging. Subclasses speak the protocol in `handle`.
 */
export abstract class LocalModelServer<Req> {
  readonly requests: Req[] = [];
  private readonly server: Server;
  private readonly waiters: { predicate: (r: Req) => boolean; resolve: (r: Req) => void }[] = [];
  private readonly hanging = new Set<ServerResponse>();

  /** Appended to the origin to give the base URL as specs and env vars write it (e.g. /v1). */
  protected abstract readonly basePath: string;

  constructor() {
    this.server = createServer((req, res) => void this.receive(req, res));
  }

  /** Listens on a free port; resolves with the base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.basePath}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves when a request matching `predicate` arrives (already arrived ones count). */
  waitFor(predicate: (r: Req) => boolean): Promise<Req> {
    const seen = this.requests.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  /** Records a parsed request and wakes whoever waits for it. */
  protected record(request: Req): void {
    this.requests.push(request);
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.predicate(request)) waiter.resolve(request);
      else this.waiters.push(waiter);
    }
  }

  /** Never answers `res` (until stop): a model call that hangs. */
  protected hang(res: ServerResponse): void {
    this.hanging.add(res);
  }

  protected send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (body instanceof RawBody) res.writeHead(status, { 'content-type': body.contentType, ...headers }).end(body.text);
    else res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  }

  /**
   * Answers with server-sent events, `delayMs` apart (the first at once), then ends the stream:
   * `end` closes it cleanly, `reset` breaks the connection (a network failure mid-answer), `hang`
   * leaves it open. A client gone meanwhile stops it.
   */
  protected streamEvents(res: ServerResponse, events: readonly string[], delayMs: number, ending: 'end' | 'reset' | 'hang' = 'end', onSent?: (event: string, at: number) => void): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let next = 0;
    const send = () => {
      if (res.destroyed) return;
      if (next < events.length) {
        const event = events[next++]!;
        res.write(event);
        onSent?.(event, Date.now());
        if (delayMs > 0) setTimeout(send, delayMs);
        else setImmediate(send);
        return;
      }
      if (ending === 'end') res.end();
      else if (ending === 'reset') res.destroy();
      else this.hang(res);
    };
    send();
  }

  /** Answers one request whose body has been read whole. */
  protected abstract handle(req: IncomingMessage, res: ServerResponse, raw: string): void;

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    this.handle(req, res, raw);
  }
}

/** `text` in pieces of `size` characters (at least one piece, so an empty answer still streams). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

/** One server-sent event: `data:` lines, with an `event:` line when named. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Starts a fresh server before each test of the file and stops it after; read it through `current()`. */
export function serverPerTest<S extends { start(): Promise<string>; stop(): Promise<void> }>(make: () => S): { current(): { server: S; baseUrl: string }; restart(): Promise<void> } {
  let server: S;
  let baseUrl: string;
  const start = async () => {
    server = make();
    baseUrl = await server.start();
  };
  beforeEach(start);
  afterEach(async () => server.stop());
  return { current: () => ({ server, baseUrl }), restart: start };
}
