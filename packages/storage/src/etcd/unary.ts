// Unary gRPC calls to etcd over our own HTTP/2 client (h2/), for the store's hot path (Range and
// Txn). The etcd3 client's path (cockatiel policies, connection pool, grpc-js's interceptor and
// retry layers) cost 140-160 us of CPU per call here, node:http2's 50-80 us (a Duplex stream, an
// async resource and a round of events per call); it remains the client for watches, compaction
// and maintenance. One HTTP/2 session at a time, to one endpoint; a session that fails is dropped
// and the next call dials the next endpoint.
import { encodeHeaders, type HeaderField } from './h2/hpack.js';
import { H2Error, H2Session, type H2Request } from './h2/session.js';

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

/** The status of a gRPC answer, from its trailers or, for a "trailers-only" answer, its headers. */
function grpcStatus(fields: readonly HeaderField[]): { status: string; message: string } | undefined {
  let status: string | undefined;
  let message = '';
  for (const [name, value] of fields) {
    if (name === 'grpc-status') status = value;
    else if (name === 'grpc-message') message = value;
  }
  if (status === undefined) return undefined;
  try {
    return { status, message: decodeURIComponent(message) };
  } catch {
    return { status, message };
  }
}

export class UnaryChannel {
  private session: H2Session | undefined;
  private nextEndpoint = 0;
  private closed = false;
  private streamsOnSession = 0;
  /** Per endpoint and path, the request headers but for grpc-timeout, encoded once. */
  private readonly headerBlocks = new Map<string, Buffer>();

  constructor(private readonly options: UnaryChannelOptions) {
    if (options.endpoints.length === 0) throw new Error('no etcd endpoints');
  }

  private currentSession(): H2Session {
    const current = this.session;
    if (current && !current.closed) {
      if (++this.streamsOnSession <= (this.options.maxStreamsPerSession ?? 2 ** 29) && current.streamIdsLeft > 0) return current;
      // Out of stream ids soon: dial afresh; this one ends once every call on it is answered.
      current.close();
    }
    this.streamsOnSession = 1;
    const endpoint = new URL(this.options.endpoints[this.nextEndpoint++ % this.options.endpoints.length]!);
    const session = new H2Session(endpoint, { windowBytes: WINDOW_BYTES });
    session.onEnd(() => {
      if (this.session === session) this.session = undefined;
    });
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

  /** The request's header block: all but grpc-timeout encoded once per endpoint and path. */
  private headerBlock(path: string, session: H2Session, timeoutMs: number): Buffer {
    const { authority } = session;
    const key = `${authority} ${path}`;
    let block = this.headerBlocks.get(key);
    if (!block) {
      block = encodeHeaders([
        [':method', 'POST'],
        [':scheme', session.scheme],
        [':path', path],
        [':authority', authority],
        ['content-type', 'application/grpc'],
        ['te', 'trailers'],
      ]);
      this.headerBlocks.set(key, block);
    }
    return Buffer.concat([block, encodeHeaders([['grpc-timeout', `${timeoutMs}m`]])]);
  }

  private async attempt(path: string, request: Buffer, deadline: number): Promise<Buffer> {
    let session: H2Session;
    try {
      session = this.currentSession();
    } catch (error) {
      throw new NotSentError(`cannot reach etcd: ${(error as Error).message}`);
    }
    const remaining = Math.max(1, deadline - Date.now());
    const call: H2Request = session.request(this.headerBlock(path, session, remaining), frame(request));
    const timer = setTimeout(
      () => call.cancel(new GrpcUnavailableError(`etcd did not answer ${path} within ${this.options.timeoutMs} ms`)),
      remaining,
    );
    let response;
    try {
      response = await call.response;
    } catch (error) {
      if (error instanceof H2Error) {
        throw error.processed ? new GrpcUnavailableError(`etcd ${path}: ${error.message}`) : new NotSentError(`etcd ${path}: ${error.message}`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
    const result = grpcStatus(response.trailers) ?? grpcStatus(response.headers);
    if (result === undefined) throw new GrpcUnavailableError(`etcd ${path}: the stream closed without a status`);
    if (result.status !== '0') throw new GrpcError(Number(result.status), result.message || `etcd ${path}: gRPC status ${result.status}`);
    return unframe(response.body);
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }
}

/** The request never reached etcd: its session never connected. */
class NotSentError extends Error {}
