import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach } from 'vitest';

/** A self-signed certificate for 127.0.0.1 (test/fixtures/tls), for a server that speaks TLS as every hosted model API does. */
const tls = { cert: readFileSync(new URL('../fixtures/tls/cert.pem', import.meta.url)), key: readFileSync(new URL('../fixtures/tls/key.pem', import.meta.url)) };

export interface StreamServer {
  /** `http(s)://127.0.0.1:<port>` */
  origin: string;
  /** The chat-completions URL under it. */
  url: string;
  /** Connections opened so far. */
  connections(): number;
  /** Settles when a connection closes. */
  closed: Promise<void>;
}

/**
 * Real model servers on 127.0.0.1 for one test file, closed after each test: `listen(handler,
 * secure)` starts one (TLS if `secure`) answering every request, its body read whole, with `handler`.
 */
export function streamServers(): (handler: (res: ServerResponse) => void, secure?: boolean) => Promise<StreamServer> {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
  return async (handler, secure = false) => {
    let connections = 0;
    let wasClosed!: () => void;
    const closed = new Promise<void>((resolve) => (wasClosed = resolve));
    const answer = (req: IncomingMessage, res: ServerResponse) => req.on('end', () => handler(res)).resume();
    const server = secure ? createTlsServer(tls, answer) : createServer(answer);
    server.keepAliveTimeout = 60_000;
    server.on(secure ? 'secureConnection' : 'connection', (socket: Socket) => {
      connections++;
      socket.on('close', wasClosed);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `${secure ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { origin, url: `${origin}/v1/chat/completions`, connections: () => connections, closed };
  };
}

/** Runs `run` trusting the fixture's certificate (the agent takes the system's trust store). */
export async function trustingTestCertificate<T>(run: () => Promise<T>): Promise<T> {
  const trust = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  try {
    return await run();
  } finally {
    if (trust === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = trust;
  }
}
