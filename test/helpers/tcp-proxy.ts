import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy on 127.0.0.1 in front of a server, to break the path to it on purpose. */
export interface TcpProxy {
  readonly port: number;
  /** Bytes the clients sent through it so far (all connections). */
  readonly sent: number;
  /** Closes the listener and every connection. */
  close(): Promise<void>;
}

/**
 * Forwards to 127.0.0.1:`port`. `dropAfter`: once a connection's client has sent that many bytes,
 * both ends are cut (a route that fails mid-transfer). `stallAfter`: past that many, nothing more is
 * forwarded either way and the sockets stay open (a route that goes silent).
 */
export async function startTcpProxy(port: number, mode: { dropAfter?: number; stallAfter?: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let sent = 0;
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let mine = 0;
    let stalled = false;
    client.on('data', (chunk: Buffer) => {
      if (stalled) return;
      mine += chunk.length;
      sent += chunk.length;
      if (mode.dropAfter !== undefined && mine > mode.dropAfter) {
        client.destroy();
        upstream.destroy();
        return;
      }
      if (mode.stallAfter !== undefined && mine > mode.stallAfter) {
        stalled = true;
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!stalled) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get sent() {
      return sent;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
