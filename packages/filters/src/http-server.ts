// The secure port as kube-apiserver serves it: HTTP/2 where the client offers it in ALPN (`h2`:
// client-go and kubectl do), HTTP/1.1 otherwise, on one TLS listener (node:http2's secure server
// with allowHTTP1). Both reach the same request handler: node's compatibility objects for HTTP/2
// have the request and response API koa and this server use. This file also keeps the connections
// of each kind for graceful shutdown, which node's HTTP/2 server does not do for us.
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse, type Http2Session, type SecureServerOptions } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** kube-apiserver's --http2-max-streams-per-connection default. */
export const DEFAULT_HTTP2_MAX_STREAMS = 1000;
/** What --http2-max-streams-per-connection=0 means: Go's own default (golang.org/x/net/http2). */
const GO_DEFAULT_HTTP2_MAX_STREAMS = 250;

export type AnyRequest = IncomingMessage | Http2ServerRequest;
export type AnyResponse = ServerResponse | Http2ServerResponse;

/** Whether a response goes out over HTTP/2 (a stream of a session) rather than HTTP/1.x. */
export const isHttp2 = (res: AnyResponse): res is Http2ServerResponse => 'stream' in res;

export interface SecurePortOptions {
  tls: SecureServerOptions;
  /** The largest header section accepted: HTTP/1.1's header bytes, HTTP/2's header list size. */
  maxHeaderBytes: number;
  /** --http2-max-streams-per-connection: streams a client may have open on one connection (0: Go's default, 250). */
  maxStreamsPerConnection: number;
}

export interface SecurePort {
  readonly server: Http2SecureServer;
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Stops accepting connections; resolves once every connection has closed. Responses written
   * from now on close their HTTP/1.1 connection after them.
   */
  close(): Promise<void>;
  /** Closes HTTP/1.1 connections with no request in flight, and asks HTTP/2 clients to go (GOAWAY). */
  closeIdleConnections(): void;
  /** Closes every connection now. */
  closeAllConnections(): void;
}

export function createSecurePort(options: SecurePortOptions, handler: (req: AnyRequest, res: AnyResponse) => void): SecurePort {
  const maxConcurrentStreams = options.maxStreamsPerConnection > 0 ? options.maxStreamsPerConnection : GO_DEFAULT_HTTP2_MAX_STREAMS;
  /** HTTP/1.1 connections and the requests in flight on each. */
  const http1 = new Map<TLSSocket, number>();
  const sessions = new Set<Http2Session>();
  let closing = false;

  const server = createSecureServer(
    {
      ...options.tls,
      allowHTTP1: true,
      settings: { maxConcurrentStreams, maxHeaderListSize: options.maxHeaderBytes },
      // Watches hold streams open for long: node's default of 10 MB per session would refuse new
      // streams on a connection carrying a thousand watches' buffered writes.
      maxSessionMemory: 64,
    },
    (request, response) => {
      // Node's types give the HTTP/2 objects only; with allowHTTP1 HTTP/1.1's come here too.
      const req = request as AnyRequest;
      const res = response as AnyResponse;
      if (!isHttp2(res)) {
        const socket = req.socket as TLSSocket;
        http1.set(socket, (http1.get(socket) ?? 0) + 1);
        // While stopping, each HTTP/1.1 connection closes after its response: its client reconnects elsewhere.
        if (closing) res.setHeader('Connection', 'close');
        res.once('close', () => {
          if (!http1.has(socket)) return;
          const active = (http1.get(socket) ?? 1) - 1;
          http1.set(socket, active);
          // Idle while stopping: no further request will come on it.
          if (closing && active === 0) socket.destroy();
        });
      }
      handler(req, res);
    },
  );
  // The HTTP/1.1 parser's limit: for its HTTP/1.1 connections node reads it from the server object.
  (server as unknown as { maxHeaderSize: number }).maxHeaderSize = options.maxHeaderBytes;
  // Node 20's HTTP/1.1 parser reads a TLS connection's bytes natively, and does not stop when it
  // pauses the connection because the previous response has not drained: the next request's body
  // then reaches a paused parser, which fails it as a client error (HPE_PAUSED) and the connection
  // is dropped with the request in flight. Seen with keep-alive clients: about one create in ten
  // of 60 KB objects. Marked as taken before node's own listener runs, the connection is read
  // through its 'data' events instead, which do stop while paused.
  server.prependListener('secureConnection', (socket: TLSSocket) => {
    const handle = (socket as unknown as { _handle?: { _consumed?: boolean } })._handle;
    if (socket.alpnProtocol !== 'h2' && handle) handle._consumed = true;
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') return;
    http1.set(socket, 0);
    socket.once('close', () => http1.delete(socket));
  });
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // A session closing while stopping is told to go at once.
    if (closing) session.close();
  });

  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close() {
      closing = true;
      if (!server.listening) return Promise.resolve();
      return new Promise((resolve) => server.close(() => resolve()));
    },
    closeIdleConnections() {
      for (const [socket, active] of http1) if (active === 0) socket.destroy();
      // GOAWAY: no new streams; those open (watches among them) go on until they end.
      for (const session of sessions) if (!session.closed) session.close();
    },
    closeAllConnections() {
      for (const socket of http1.keys()) socket.destroy();
      for (const session of sessions) session.destroy();
    },
  };
}
