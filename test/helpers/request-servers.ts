import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * Real HTTP servers on 127.0.0.1 for one test file, closed after each test: `listen(handler)` starts
 * one handing every request to `handler` as node:http does (its body unread), and gives its base URL.
 * For servers that read the request themselves; `answeringServers` reads it whole first.
 */
export function requestServers(): (handler: RequestListener) => Promise<string> {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
  return async (handler) => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}
