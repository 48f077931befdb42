import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * Real HTTP servers on 127.0.0.1 for one test file, closed after each test: `listen(handler)`
 * starts one answering every request (its body read whole) with `handler`, and gives its base URL.
 */
export function answeringServers(): (handler: (res: ServerResponse, req: IncomingMessage) => void) => Promise<string> {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
  return async (handler) => {
    const server = createServer((req, res) => req.on('end', () => handler(res, req)).resume());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}
