// A client HTTP/2 connection (RFC 9113) for unary request/response exchanges, such as gRPC's, and
// nothing more: no server push, no priorities, no trailers of our own. node:http2 makes each
// request a Duplex stream with its own async resource and a round of events per frame; for etcd's
// small and frequent calls that cost more than the rest of a write's path in the store. Here a
// request is a header block and a body, and its answer a promise of headers, trailers and body.
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { HpackDecoder, type HeaderField } from './hpack.js';

const enum FrameType {
  Data = 0,
  Headers = 1,
  Priority = 2,
  RstStream = 3,
  Settings = 4,
  PushPromise = 5,
  Ping = 6,
  GoAway = 7,
  WindowUpdate = 8,
  Continuation = 9,
}

const FLAG_END_STREAM = 0x1;
const FLAG_ACK = 0x1;
const FLAG_END_HEADERS = 0x4;
const FLAG_PADDED = 0x8;
const FLAG_PRIORITY = 0x20;

const SETTINGS_ENABLE_PUSH = 2;
const SETTINGS_MAX_CONCURRENT_STREAMS = 3;
const SETTINGS_INITIAL_WINDOW_SIZE = 4;
const SETTINGS_MAX_FRAME_SIZE = 5;

/** RFC 9113 defaults, until the peer's SETTINGS say otherwise. */
const DEFAULT_WINDOW = 65_535;
const DEFAULT_MAX_FRAME = 16_384;
const MAX_WINDOW = 2 ** 31 - 1;
const MAX_STREAM_ID = 2 ** 31 - 1;
const FRAME_HEADER = 9;

const ERROR_NAMES = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED'];
const REFUSED_STREAM = 7;
const CANCEL = 8;
const errorName = (code: number): string => ERROR_NAMES[code] ?? `error code ${code}`;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export interface H2Response {
  headers: HeaderField[];
  /** Empty when the answer ended with its headers (gRPC's "trailers-only"). */
  trailers: HeaderField[];
  body: Buffer;
}

/** A request failed. `processed` false: the server certainly did not act on it (safe to retry). */
export class H2Error extends Error {
  override readonly name = 'H2Error';
  constructor(
    message: string,
    readonly processed: boolean,
  ) {
    super(message);
  }
}

export interface H2Request {
  readonly response: Promise<H2Response>;
  /** Abandons the request (RST_STREAM CANCEL); its promise rejects with `reason`. */
  cancel(reason: Error): void;
}

interface Stream {
  id: number;
  resolve(response: H2Response): void;
  reject(error: Error): void;
  headerBlock: Buffer;
  /** Body bytes not yet sent (flow control), from `sent` on. */
  body: Buffer;
  sent: number;
  sendWindow: number;
  /** Response body bytes received and not yet given back to the peer's window. */
  unacknowledged: number;
  chunks: Buffer[];
  headers: HeaderField[] | undefined;
  trailers: HeaderField[];
}

export interface H2SessionOptions {
  /** The receive window this side announces, per stream and for the connection. */
  windowBytes: number;
}

export class H2Session {
  private readonly socket: Socket;
  private readonly decoder = new HpackDecoder();
  private readonly streams = new Map<number, Stream>();
  /** Requests waiting for the peer's concurrency limit. */
  private readonly waiting: Stream[] = [];
  /** Streams with body bytes the flow-control windows hold back. */
  private readonly blocked = new Set<Stream>();
  private nextStreamId = 1;
  private connectionSendWindow = DEFAULT_WINDOW;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = DEFAULT_MAX_FRAME;
  private peerMaxStreams = Infinity;
  private connectionUnacknowledged = 0;
  /** Frames to write at the end of this turn of the event loop, in one write. */
  private output: Buffer[] = [];
  private flushQueued = false;
  private input: Buffer | undefined;
  /** A header block split over CONTINUATION frames. */
  private continuation: { streamId: number; endStream: boolean; fragments: Buffer[] } | undefined;
  private goingAway = false;
  private tcpConnected = false;
  private ended = false;
  private readonly listeners = new Set<() => void>();
  /** The request's :scheme and :authority for this connection. */
  readonly scheme: 'http' | 'https';
  readonly authority: string;

  constructor(
    url: URL,
    private readonly options: H2SessionOptions,
  ) {
    this.scheme = url.protocol === 'https:' ? 'https' : 'http';
    this.authority = url.host;
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    this.socket =
      url.protocol === 'https:'
        ? connectTls({ host, port, servername: host, ALPNProtocols: ['h2'] }, () => this.onConnect())
        : connectTcp({ host, port }, () => this.onConnect());
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (error) => this.destroy(error.message));
    this.socket.on('close', () => this.destroy('the connection closed'));
    // An idle connection must not keep the process alive.
    this.socket.unref();
    const settings = Buffer.alloc(12);
    settings.writeUInt16BE(SETTINGS_ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(options.windowBytes, 8);
    this.queueFrame(FrameType.Settings, 0, 0, settings);
    this.output.unshift(PREFACE);
    if (options.windowBytes > DEFAULT_WINDOW) this.windowUpdate(0, options.windowBytes - DEFAULT_WINDOW);
  }

  /** Whether the connection reached the server: before that, nothing was sent. */
  get connected(): boolean {
    return this.tcpConnected;
  }

  /** No new requests: the connection failed, was closed, or the server is going away. */
  get closed(): boolean {
    return this.ended || this.goingAway;
  }

  /** Streams this session can still open. */
  get streamIdsLeft(): number {
    return Math.max(0, Math.floor((MAX_STREAM_ID - this.nextStreamId) / 2) + 1);
  }

  /** Called once when the session ends, however it ends. */
  onEnd(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Sends a request: its header block (HPACK) and body (the stream ends with it). */
  request(headerBlock: Buffer, body: Buffer): H2Request {
    let stream!: Stream;
    const response = new Promise<H2Response>((resolve, reject) => {
      stream = { id: 0, resolve, reject, headerBlock, body, sent: 0, sendWindow: 0, unacknowledged: 0, chunks: [], headers: undefined, trailers: [] };
    });
    if (this.closed) stream.reject(new H2Error(this.ended ? 'the connection is closed' : 'the server is going away', false));
    else if (this.nextStreamId > MAX_STREAM_ID) stream.reject(new H2Error('the connection is out of stream ids', false));
    else if (this.streams.size >= this.peerMaxStreams) this.waiting.push(stream);
    else this.open(stream);
    return { response, cancel: (reason) => this.cancel(stream, reason) };
  }

  /** Ends the session once its requests are answered. */
  close(): void {
    this.goingAway = true;
    for (const stream of this.waiting.splice(0)) stream.reject(new H2Error('the connection is closing', false));
    if (this.streams.size === 0) this.end();
  }

  private onConnect(): void {
    this.tcpConnected = true;
  }

  private open(stream: Stream): void {
    stream.id = this.nextStreamId;
    this.nextStreamId += 2;
    stream.sendWindow = this.peerInitialWindow;
    this.streams.set(stream.id, stream);
    this.queueFrame(FrameType.Headers, FLAG_END_HEADERS | (stream.body.length ? 0 : FLAG_END_STREAM), stream.id, stream.headerBlock);
    if (stream.body.length) this.sendBody(stream);
  }

  /** As much of the body as the windows allow, in frames of at most the peer's size. */
  private sendBody(stream: Stream): void {
    while (stream.sent < stream.body.length) {
      const size = Math.min(stream.body.length - stream.sent, this.connectionSendWindow, stream.sendWindow, this.peerMaxFrame);
      if (size <= 0) {
        this.blocked.add(stream);
        return;
      }
      const end = stream.sent + size === stream.body.length;
      this.queueFrame(FrameType.Data, end ? FLAG_END_STREAM : 0, stream.id, stream.body.subarray(stream.sent, stream.sent + size));
      stream.sent += size;
      stream.sendWindow -= size;
      this.connectionSendWindow -= size;
    }
    this.blocked.delete(stream);
  }

  private cancel(stream: Stream, reason: Error): void {
    const waitingAt = this.waiting.indexOf(stream);
    if (waitingAt >= 0) this.waiting.splice(waitingAt, 1);
    else if (this.streams.get(stream.id) === stream) {
      this.queueRstStream(stream.id, CANCEL);
      this.finish(stream);
    } else return;
    stream.reject(reason);
  }

  /** Forgets a stream that is done, and opens waiting ones in its place. */
  private finish(stream: Stream): void {
    this.streams.delete(stream.id);
    this.blocked.delete(stream);
    while (this.waiting.length && this.streams.size < this.peerMaxStreams) this.open(this.waiting.shift()!);
    if (this.goingAway && this.streams.size === 0) this.end();
  }

  private queueFrame(type: FrameType, flags: number, streamId: number, payload: Buffer): void {
    const header = Buffer.allocUnsafe(FRAME_HEADER);
    header.writeUIntBE(payload.length, 0, 3);
    header[3] = type;
    header[4] = flags;
    header.writeUInt32BE(streamId, 5);
    this.output.push(header, payload);
    if (!this.flushQueued) {
      this.flushQueued = true;
      // After the event loop's I/O callbacks at hand: the calls that requests arriving together
      // make go to etcd in one write (one system call for tens of calls under load).
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.ended || this.output.length === 0) return;
    const frames = this.output;
    this.output = [];
    this.socket.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
  }

  private windowUpdate(streamId: number, increment: number): void {
    const payload = Buffer.allocUnsafe(4);
    payload.writeUInt32BE(increment, 0);
    this.queueFrame(FrameType.WindowUpdate, 0, streamId, payload);
  }

  private queueRstStream(streamId: number, code: number): void {
    const payload = Buffer.allocUnsafe(4);
    payload.writeUInt32BE(code, 0);
    this.queueFrame(FrameType.RstStream, 0, streamId, payload);
  }

  private onData(chunk: Buffer): void {
    let data = this.input ? Buffer.concat([this.input, chunk]) : chunk;
    this.input = undefined;
    let offset = 0;
    while (!this.ended && data.length - offset >= FRAME_HEADER) {
      const length = data.readUIntBE(offset, 3);
      if (length > DEFAULT_MAX_FRAME) return this.fail('FRAME_SIZE_ERROR', `a frame of ${length} bytes, above the ${DEFAULT_MAX_FRAME} allowed`);
      if (data.length - offset < FRAME_HEADER + length) break;
      const type = data[offset + 3]!;
      const flags = data[offset + 4]!;
      const streamId = data.readUInt32BE(offset + 5) & MAX_STREAM_ID;
      const payload = data.subarray(offset + FRAME_HEADER, offset + FRAME_HEADER + length);
      offset += FRAME_HEADER + length;
      try {
        this.onFrame(type, flags, streamId, payload);
      } catch (error) {
        return this.fail('PROTOCOL_ERROR', (error as Error).message);
      }
    }
    if (offset < data.length && !this.ended) this.input = data.subarray(offset);
  }

  private onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.continuation && type !== FrameType.Continuation) throw new Error('a frame inside a header block');
    switch (type) {
      case FrameType.Data:
        return this.onDataFrame(flags, streamId, payload);
      case FrameType.Headers: {
        let fragment = payload;
        if (flags & FLAG_PADDED) fragment = unpad(fragment);
        if (flags & FLAG_PRIORITY) fragment = fragment.subarray(5);
        return this.onHeaderFragment(streamId, fragment, (flags & FLAG_END_HEADERS) !== 0, (flags & FLAG_END_STREAM) !== 0);
      }
      case FrameType.Continuation:
        if (!this.continuation || this.continuation.streamId !== streamId) throw new Error('a CONTINUATION frame outside a header block');
        return this.onHeaderFragment(streamId, payload, (flags & FLAG_END_HEADERS) !== 0, this.continuation.endStream);
      case FrameType.RstStream: {
        const stream = this.streams.get(streamId);
        if (!stream) return;
        const code = payload.readUInt32BE(0);
        this.finish(stream);
        stream.reject(new H2Error(`the server reset the stream: ${errorName(code)}`, code !== REFUSED_STREAM));
        return;
      }
      case FrameType.Settings:
        if (!(flags & FLAG_ACK)) this.onSettings(payload);
        return;
      case FrameType.Ping:
        if (!(flags & FLAG_ACK)) this.queueFrame(FrameType.Ping, FLAG_ACK, 0, Buffer.from(payload));
        return;
      case FrameType.GoAway:
        return this.onGoAway(payload.readUInt32BE(0) & MAX_STREAM_ID, payload.readUInt32BE(4));
      case FrameType.WindowUpdate:
        return this.onWindowUpdate(streamId, payload.readUInt32BE(0) & MAX_WINDOW);
      case FrameType.PushPromise:
        throw new Error('a PUSH_PROMISE, which this client disabled');
      default:
        // PRIORITY and unknown frame types are ignored (RFC 9113 4.1, 5.5).
        return;
    }
  }

  private onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    // Every DATA frame counts against the connection's window, padding included, answered or not.
    this.connectionUnacknowledged += payload.length;
    if (this.connectionUnacknowledged >= this.options.windowBytes / 2) {
      this.windowUpdate(0, this.connectionUnacknowledged);
      this.connectionUnacknowledged = 0;
    }
    const stream = this.streams.get(streamId);
    if (!stream) return;
    const data = flags & FLAG_PADDED ? unpad(payload) : payload;
    if (data.length) stream.chunks.push(data);
    if (flags & FLAG_END_STREAM) return this.complete(stream);
    stream.unacknowledged += payload.length;
    if (stream.unacknowledged >= this.options.windowBytes / 2) {
      this.windowUpdate(stream.id, stream.unacknowledged);
      stream.unacknowledged = 0;
    }
  }

  private onHeaderFragment(streamId: number, fragment: Buffer, endHeaders: boolean, endStream: boolean): void {
    if (!endHeaders) {
      this.continuation ??= { streamId, endStream, fragments: [] };
      this.continuation.fragments.push(Buffer.from(fragment));
      return;
    }
    let block = fragment;
    if (this.continuation) {
      block = Buffer.concat([...this.continuation.fragments, fragment]);
      this.continuation = undefined;
    }
    // Decoded whether or not the stream is still wanted: the table is the connection's.
    const fields = this.decoder.decode(block);
    const stream = this.streams.get(streamId);
    if (!stream) return;
    if (stream.headers === undefined) stream.headers = fields;
    else stream.trailers = fields;
    if (endStream) this.complete(stream);
  }

  private complete(stream: Stream): void {
    this.finish(stream);
    const { chunks } = stream;
    stream.resolve({ headers: stream.headers ?? [], trailers: stream.trailers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
  }

  private onSettings(payload: Buffer): void {
    for (let i = 0; i + 6 <= payload.length; i += 6) {
      const id = payload.readUInt16BE(i);
      const value = payload.readUInt32BE(i + 2);
      if (id === SETTINGS_MAX_CONCURRENT_STREAMS) this.peerMaxStreams = value;
      else if (id === SETTINGS_MAX_FRAME_SIZE) this.peerMaxFrame = value;
      else if (id === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) throw new Error(`an initial window of ${value}`);
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      }
    }
    this.queueFrame(FrameType.Settings, FLAG_ACK, 0, Buffer.alloc(0));
    this.unblock();
    while (this.waiting.length && this.streams.size < this.peerMaxStreams) this.open(this.waiting.shift()!);
  }

  private onWindowUpdate(streamId: number, increment: number): void {
    if (streamId === 0) this.connectionSendWindow += increment;
    else {
      const stream = this.streams.get(streamId);
      if (!stream) return;
      stream.sendWindow += increment;
    }
    this.unblock();
  }

  private unblock(): void {
    for (const stream of [...this.blocked]) this.sendBody(stream);
  }

  private onGoAway(lastStreamId: number, code: number): void {
    this.goingAway = true;
    // Streams above the last one the server took were never processed: the caller may retry them.
    for (const stream of [...this.streams.values()]) {
      if (stream.id <= lastStreamId) continue;
      this.finish(stream);
      stream.reject(new H2Error(`the server is going away (${errorName(code)})`, false));
    }
    for (const stream of this.waiting.splice(0)) stream.reject(new H2Error('the server is going away', false));
    if (this.streams.size === 0) this.end();
  }

  /** A connection error: tell the server why, and end. */
  private fail(code: keyof typeof CONNECTION_ERROR_CODES, message: string): void {
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(Math.max(0, this.nextStreamId - 2), 0);
    payload.writeUInt32BE(CONNECTION_ERROR_CODES[code], 4);
    this.queueFrame(FrameType.GoAway, 0, 0, payload);
    this.flush();
    this.destroy(`${code}: ${message}`);
  }

  private end(): void {
    if (this.ended) return;
    this.flush();
    this.ended = true;
    this.socket.end();
    this.notifyEnd();
  }

  /** Ends the session at once; what is in flight fails. */
  destroy(reason: string): void {
    const wasEnded = this.ended;
    this.ended = true;
    this.goingAway = true;
    // Sent requests may have been acted on; unless the connection never came up at all.
    const processed = this.tcpConnected;
    for (const stream of [...this.streams.values(), ...this.waiting.splice(0)]) {
      this.streams.delete(stream.id);
      stream.reject(new H2Error(reason, processed && stream.id !== 0));
    }
    this.blocked.clear();
    if (!this.socket.destroyed) this.socket.destroy();
    if (!wasEnded) this.notifyEnd();
  }

  private notifyEnd(): void {
    for (const listener of this.listeners) listener();
    this.listeners.clear();
  }
}

const CONNECTION_ERROR_CODES = { PROTOCOL_ERROR: 1, FRAME_SIZE_ERROR: 6 } as const;

/** A padded frame's payload without its pad length octet and padding. */
function unpad(payload: Buffer): Buffer {
  const padding = payload[0]!;
  if (padding >= payload.length) throw new Error('padding longer than the frame');
  return payload.subarray(1, payload.length - padding);
}
