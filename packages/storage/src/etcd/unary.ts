// Unary gRPC calls to etcd over node:http2, for the store's hot path (Range and Txn). The etcd3
// client's path (cockatiel policies, connection pool, grpc-js's interceptor and retry layers) cost
// 140-160 us of CPU per call here against 50-80 us for this one (same etcd, 64 in flight); it
// remains the client for watches, compaction and maintenance. One HTTP/2 session at a time, to one
// endpoint; a session that fails is dropped and the next call dials the next endpoint.
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';

/** A gRPC status other than OK: etcd's message (e.g. "etcdserver: mvcc: required revision has been compacted"). */
export class GrpcError extends Error {
  override readonly name = 'GrpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The call never reached an etcd that answered: no session, a broken stream, or the deadline. */
export class GrpcUnavailableError extends Error {
  override readonly name = 'GrpcUnavailableError';
}

export interface UnaryChannelOptions {
  /** etcd client URLs, e.g. http://127.0.0.1:2379. */
  endpoints: readonly string[];
  /** How long a call may take, dialing included. */
  timeoutMs: number;
  /**
   * Streams one session carries before the next is dialed. HTTP/2 stream ids are 31 bits and a
   * client's are odd: about a billion per connection, after which node refuses new streams. At
   * 5,000 calls a second that is under three days. Default 2^29.
   */
  maxStreamsPerSession?: number;
}

/** A message as gRPC frames it: not compressed, a 4-byte big-endian length, the bytes. */
function frame(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(5 + message.length);
  framed[0] = 0;
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  return framed;
}

function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new GrpcUnavailableError(`etcd answered ${body.length} bytes, not a gRPC message`);
  if (body[0] !== 0) throw new GrpcUnavailableError('etcd answered a compressed message, which was not asked for');
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw new GrpcUnavailableError('etcd answered a truncated gRPC message');
  return body.subarray(5, 5 + length);
}

/** Large enough that a list of thousands of objects is not held back by flow control. */
const WINDOW_BYTES = 32 << 20;

export class UnaryChannel {
  private session: ClientHttp2Session | undefined;
  private nextEndpoint = 0;
  private closed = false;
  /** Sessions that reached etcd: a request on any other was never sent. */
  private readonly connected = new WeakSet<ClientHttp2Session>();
  private streamsOnSession = 0;

  constructor(private readonly options: UnaryChannelOptions) {
    if (options.endpoints.length === 0) throw new Error('no etcd endpoints');
  }

  private currentSession(): ClientHttp2Session {
    const current = this.session;
    if (current && !current.closed && !current.destroyed) {
      if (++this.streamsOnSession <= (this.options.maxStreamsPerSession ?? 2 ** 29)) return current;
      // Out of stream ids soon: dial afresh, and close this one once every call on it is past its
      // deadline (closing at once would fail those still queued behind the connection).
      setTimeout(() => current.close(), this.options.timeoutMs + 1000).unref();
    }
    this.streamsOnSession = 1;
    const endpoint = this.options.endpoints[this.nextEndpoint++ % this.options.endpoints.length]!;
    const session = connect(endpoint, { settings: { initialWindowSize: WINDOW_BYTES } });
    const forget = (): void => {
      if (this.session === session) this.session = undefined;
    };
    // Errors reach the streams of the session; the session itself is only forgotten.
    session.on('error', forget);
    session.on('close', forget);
    session.on('goaway', forget);
    session.once('connect', () => {
      this.connected.add(session);
      session.setLocalWindowSize(WINDOW_BYTES);
    });
    // An idle session must not keep the process alive.
    session.unref();
    this.session = session;
    return session;
  }

  /** Calls `path` (e.g. /etcdserverpb.KV/Range) with an encoded request; resolves the encoded response. */
  async call(path: string, request: Buffer): Promise<Buffer> {
    if (this.closed) throw new GrpcUnavailableError('the etcd client is closed');
    const deadline = Date.now() + this.options.timeoutMs;
    // A call whose session failed before the request could be sent is tried on the next endpoint:
    // etcd never saw it. Anything later is the caller's to judge.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(path, request, deadline);
      } catch (error) {
        // Each endpoint once, and at least one fresh session (the first may have been closing).
        const attempts = Math.max(2, this.options.endpoints.length);
        const retry = error instanceof NotSentError && attempt < attempts && Date.now() < deadline;
        if (!retry) throw error instanceof NotSentError ? new GrpcUnavailableError(error.message) : error;
      }
    }
  }

  private attempt(path: string, request: Buffer, deadline: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let session: ClientHttp2Session;
      try {
        session = this.currentSession();
      } catch (error) {
        reject(new NotSentError(`cannot reach etcd: ${(error as Error).message}`));
        return;
      }
      const remaining = Math.max(1, deadline - Date.now());
      let stream: ReturnType<ClientHttp2Session['request']>;
      try {
        stream = session.request({
          ':method': 'POST',
          ':path': path,
          'content-type': 'application/grpc',
          te: 'trailers',
          'grpc-timeout': `${remaining}m`,
        });
      } catch (error) {
        // A session that cannot open a stream (closing, out of stream ids) is done with.
        if (this.session === session) this.session = undefined;
        session.close();
        reject(new NotSentError(`etcd ${path}: ${(error as Error).message}`));
        return;
      }
      const chunks: Buffer[] = [];
      let status: string | undefined;
      let message = '';
      let settled = false;
      // Only a request on a session that never connected certainly did not reach etcd.
      const unsent = (text: string): Error =>
        this.connected.has(session) ? new GrpcUnavailableError(text) : new NotSentError(text);
      const settle = (error: Error | undefined, body?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(body!);
      };
      const timer = setTimeout(() => {
        stream.close(constants.NGHTTP2_CANCEL);
        settle(new GrpcUnavailableError(`etcd did not answer ${path} within ${this.options.timeoutMs} ms`));
      }, remaining);
      const readStatus = (headers: IncomingHttpHeaders): void => {
        const code = headers['grpc-status'];
        if (typeof code === 'string') {
          status = code;
          const text = headers['grpc-message'];
          message = typeof text === 'string' ? decodeURIComponent(text) : '';
        }
      };
      // A "trailers-only" answer carries its status in the headers.
      stream.on('response', readStatus);
      stream.on('trailers', readStatus);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error: Error) => settle(unsent(`etcd ${path}: ${error.message}`)));
      stream.on('close', () => {
        if (settled) return;
        if (status === undefined) {
          settle(unsent(`etcd ${path}: the stream closed without a status`));
          return;
        }
        if (status !== '0') {
          settle(new GrpcError(Number(status), message || `etcd ${path}: gRPC status ${status}`));
          return;
        }
        try {
          settle(undefined, unframe(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
        } catch (error) {
          settle(error as Error);
        }
      });
      stream.end(frame(request));
    });
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }
}

/** The request never reached etcd: its session never connected. */
class NotSentError extends Error {}
