// A loopback TCP proxy whose answers are slowed to a set rate, so that a test can cut a stream at
// a chosen point in the middle of a long transfer (a watch catching up) rather than by luck.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface ThrottledProxy {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** Forwards to `target` (host:port); data from the target reaches clients at `bytesPerSecond`. */
export function startThrottledProxy(target: string, bytesPerSecond: number): Promise<ThrottledProxy> {
  const [host, port] = target.replace(/^https?:\/\//, '').split(':');
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), host!);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      // Hold the next chunk back for as long as this one takes at the set rate.
      upstream.pause();
      setTimeout(() => upstream.resume(), (chunk.length / bytesPerSecond) * 1000);
    });
    upstream.on('end', () => client.end());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const listening = typeof address === 'object' && address ? address.port : 0;
      resolve({
        endpoint: `http://127.0.0.1:${listening}`,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
