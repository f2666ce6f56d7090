// A loopback TCP proxy in front of one server that a test can turn into a black hole: connections
// are still accepted, and nothing passes either way (new or old), as with a partitioned host or a
// load balancer that lost its backend without resetting anything.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface FaultProxy {
  /** <scheme>://127.0.0.1:<port>, the scheme of the target. */
  readonly endpoint: string;
  /** Bytes passed from clients to the target so far: which proxy a client is using. */
  readonly bytesForwarded: number;
  /** From now on nothing passes; connections stay open and new ones are accepted. */
  blackhole(): void;
  /** Lets traffic pass again: held connections are dropped (as a peer would time them out), new ones pass. */
  restore(): void;
  close(): Promise<void>;
}

/** Forwards to `target` (http(s)://host:port or host:port). */
export function startFaultProxy(target: string): Promise<FaultProxy> {
  const scheme = /^(https?):\/\//.exec(target)?.[1] ?? 'http';
  const [host, port] = target.replace(/^https?:\/\//, '').split(':');
  const sockets = new Set<Socket>();
  let holding = false;
  let forwarded = 0;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (holding) return; // accepted, never answered
    const upstream = connect(Number(port), host!);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (!holding) client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (chunk: Buffer) => {
      if (holding) return;
      forwarded += chunk.length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!holding) client.write(chunk);
    });
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const listening = typeof address === 'object' && address ? address.port : 0;
      resolve({
        endpoint: `${scheme}://127.0.0.1:${listening}`,
        get bytesForwarded() {
          return forwarded;
        },
        blackhole() {
          holding = true;
        },
        restore() {
          holding = false;
          for (const socket of sockets) socket.destroy();
        },
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
