// One HTTP/2 connection to an API server, as client-go keeps one: every request and watch of a
// client is a stream of it, rather than a TLS connection each (a controller's thirty informers on
// one connection, not thirty). ALPN offers h2 and http/1.1; a server that agrees to HTTP/1.1 only
// is remembered, and the client goes on over HTTP/1.1 (the caller's keep-alive agent).
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

export class Http2Connection {
  private session: ClientHttp2Session | undefined;
  private connecting: Promise<ClientHttp2Session | undefined> | undefined;
  /** The server agreed to HTTP/1.1 only. */
  private http1Only = false;
  private active = 0;
  private closed = false;

  constructor(
    private readonly authority: URL,
    private readonly tls: ConnectionOptions,
  ) {}

  /**
   * The connection's session, connecting when there is none (or the last was told to go); undefined
   * when the server speaks HTTP/1.1 only. Rejects when the server cannot be reached.
   */
  get(): Promise<ClientHttp2Session | undefined> {
    const session = this.session;
    if (session && !session.closed && !session.destroyed) return Promise.resolve(session);
    if (this.http1Only || this.closed) return Promise.resolve(undefined);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private connect(): Promise<ClientHttp2Session | undefined> {
    return new Promise((resolve, reject) => {
      const socket = tlsConnect({
        ...this.tls,
        host: this.authority.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: Number(this.authority.port || 443),
        ALPNProtocols: ['h2', 'http/1.1'],
      });
      socket.once('error', reject);
      socket.once('secureConnect', () => {
        socket.off('error', reject);
        if (socket.alpnProtocol !== 'h2') {
          this.http1Only = true;
          socket.destroy();
          resolve(undefined);
          return;
        }
        const session = http2Connect(this.authority, { createConnection: () => socket });
        // A session's failure reaches its streams; the next request connects again.
        session.on('error', () => {});
        const forget = (): void => {
          if (this.session === session) this.session = undefined;
        };
        session.once('close', forget);
        // Told to go (the server is shutting down): new requests on a new connection.
        session.once('goaway', forget);
        this.session = session;
        this.updateRef();
        resolve(session);
      });
    });
  }

  /**
   * Counts a stream while it is open: the connection keeps the process alive while any is (a
   * request awaited), and not while idle (a client that is done does not hold its process).
   */
  track(stream: { once(event: 'close', listener: () => void): unknown }): void {
    this.active++;
    this.updateRef();
    stream.once('close', () => {
      this.active--;
      this.updateRef();
    });
  }

  private updateRef(): void {
    if (!this.session || this.session.destroyed) return;
    if (this.active > 0) this.session.ref();
    else this.session.unref();
  }

  /** Closes the connection: streams under way finish, none start. */
  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }
}
