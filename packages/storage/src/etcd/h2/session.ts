// A client HTTP/2 connection (RFC 9113) for gRPC's exchanges and nothing more: no server push, no
// priorities, no trailers of our own. node:http2 makes each request a Duplex stream with its own
// async resource and a round of events per frame; for etcd's small and frequent calls that cost
// more than the rest of a write's path in the store. Here a unary request is a header block and a
// body, and its answer a promise of headers, trailers and body; a long-lived stream (a watch) is a
// header block, writes, and a listener of the answer's data.
//
// The session also watches its own liveness: a PING when a request has waited with nothing heard
// from the server, or when streams are open on a quiet connection; no answer in time ends it. A
// connection whose server never sent its SETTINGS (a frozen process still accepts TCP, a
// blackholing proxy too) ends at its connect timeout, its requests known not to have been served.
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
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
const MAX_ALLOWED_FRAME = 2 ** 24 - 1;
const MAX_WINDOW = 2 ** 31 - 1;
const MAX_STREAM_ID = 2 ** 31 - 1;
const FRAME_HEADER = 9;

const ERROR_NAMES = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED'];
const REFUSED_STREAM = 7;
const CANCEL = 8;
const errorName = (code: number): string => ERROR_NAMES[code] ?? `error code ${code}`;

/** The connection errors this side raises, with their codes (RFC 9113 7). */
const CONNECTION_ERROR_CODES = { PROTOCOL_ERROR: 1, FLOW_CONTROL_ERROR: 3, FRAME_SIZE_ERROR: 6, COMPRESSION_ERROR: 9 } as const;
type ConnectionErrorName = keyof typeof CONNECTION_ERROR_CODES;

/** A violation by the peer that ends the connection. */
class ConnectionError extends Error {
  constructor(
    readonly code: ConnectionErrorName,
    message: string,
  ) {
    super(message);
  }
}

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
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface H2Request {
  readonly response: Promise<H2Response>;
  /** Abandons the request (RST_STREAM CANCEL); its promise rejects with `reason`. */
  cancel(reason: Error): void;
}

/** What a long-lived stream hears. */
export interface StreamListener {
  /** A piece of the answer's body, as it arrives (gRPC messages may span pieces). */
  onData(chunk: Buffer): void;
  /** The stream ended: the server's headers and trailers, or why it failed. Called once. */
  onEnd(result: { headers: HeaderField[]; trailers: HeaderField[] } | H2Error): void;
}

export interface H2Stream {
  /** Sends body bytes (flow control permitting; queued meanwhile). */
  write(data: Buffer): void;
  /** Stops sending WINDOW_UPDATEs for this stream: the server stops once its window is spent. */
  pause(): void;
  resume(): void;
  /** Resets the stream (RST_STREAM CANCEL); the listener hears nothing more. */
  cancel(): void;
}

interface Stream {
  id: number;
  resolve(response: H2Response): void;
  reject(error: Error): void;
  headerBlock: Buffer;
  /** Body bytes not yet sent (flow control), from `sent` on. */
  body: Buffer;
  sent: number;
  /** The body so far ends the stream (a unary request's always does). */
  endStream: boolean;
  sendWindow: number;
  /** Response body bytes received and not yet given back to the peer's window. */
  unacknowledged: number;
  chunks: Buffer[];
  headers: HeaderField[] | undefined;
  trailers: HeaderField[];
  /** A long-lived stream's listener; unary requests collect their answer instead. */
  listener: StreamListener | undefined;
  paused: boolean;
  /** The keepalive tick at which it was opened (unary requests: how long it has waited). */
  openedTick: number;
}

/** PEM (or DER) material for a TLS connection; missing parts are Node's defaults. */
export interface TlsCredentials {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
}

export interface KeepaliveOptions {
  /** A request that has waited this long with nothing received from the server: PING. */
  stallMs: number;
  /** Streams open on a connection quiet for this long: PING. */
  idleMs: number;
  /** No frame at all from the server within this long of a PING: the connection is dead. */
  timeoutMs: number;
  /**
   * The least time between two PINGs with no data from the server between them. grpc-go servers
   * (etcd: --grpc-keepalive-min-time, 5 s) count closer ones as strikes and go away after three;
   * data or headers they send clear the count.
   */
  minIntervalMs: number;
}

export interface H2SessionOptions {
  /** The receive window this side announces for the connection (and per stream, unless streamWindowBytes). */
  windowBytes: number;
  /**
   * The receive window of each stream: how much a paused stream (a watch whose reader is behind)
   * may still be sent. Default windowBytes.
   */
  streamWindowBytes?: number;
  /** For https: the CA to trust and this client's certificate and key. */
  tls?: TlsCredentials;
  /** How long the TCP (and TLS) connection and the server's SETTINGS may take. */
  connectTimeoutMs?: number;
  keepalive?: KeepaliveOptions;
}

/** How often the keepalive clock ticks; its deadlines are counted in ticks. */
const TICK_MS = 250;
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

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
  /** The server's first SETTINGS arrived: it is an HTTP/2 server and it is reading. */
  private peerReady = false;
  private ended = false;
  private readonly listeners = new Set<(reason: string | undefined) => void>();
  private readonly readyListeners = new Set<() => void>();
  /** The keepalive clock: ticks since the start, and what happened at which tick. */
  private readonly timer: NodeJS.Timeout;
  private tick = 0;
  private receivedSinceTick = false;
  private lastReceivedTick = 0;
  /** Data or headers from the server since the last PING was answered (see minIntervalMs). */
  private dataSincePingAck = true;
  private pingSentTick = -1;
  private lastPingTick = -Infinity;
  private pingOutstanding = false;
  private readonly pingWaiters: Array<{ resolve(): void }> = [];
  private endReason: string | undefined;
  private notified = false;
  private readonly streamWindow: number;
  /** The request's :scheme and :authority for this connection. */
  readonly scheme: 'http' | 'https';
  readonly authority: string;

  constructor(
    url: URL,
    private readonly options: H2SessionOptions,
  ) {
    this.scheme = url.protocol === 'https:' ? 'https' : 'http';
    this.authority = url.host;
    this.streamWindow = options.streamWindowBytes ?? options.windowBytes;
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (this.scheme === 'https') {
      const tls = options.tls ?? {};
      const socket: TLSSocket = connectTls({
        host,
        port,
        // SNI is for names only; an IP address is checked against the certificate's IP SANs.
        ...(isIP(host) ? {} : { servername: host }),
        ALPNProtocols: ['h2'],
        ...(tls.ca !== undefined && { ca: tls.ca }),
        ...(tls.cert !== undefined && { cert: tls.cert }),
        ...(tls.key !== undefined && { key: tls.key }),
      });
      socket.once('secureConnect', () => {
        if (socket.alpnProtocol !== 'h2') this.destroy(`the server at ${this.authority} did not agree to HTTP/2 (ALPN: ${socket.alpnProtocol || 'none'})`);
      });
      this.socket = socket;
    } else {
      this.socket = connectTcp({ host, port });
    }
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (error) => this.destroy(describeSocketError(error), error));
    this.socket.on('close', () =>
      this.destroy(
        this.peerReady || this.scheme === 'https'
          ? 'the connection closed'
          : 'the server closed the connection before answering in HTTP/2 (a TLS member reached with http://, or a proxy without its backend?)',
      ),
    );
    // An idle connection must not keep the process alive.
    this.socket.unref();
    const settings = Buffer.alloc(12);
    settings.writeUInt16BE(SETTINGS_ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(this.streamWindow, 8);
    this.queueFrame(FrameType.Settings, 0, 0, settings);
    this.output.unshift(PREFACE);
    if (options.windowBytes > DEFAULT_WINDOW) this.windowUpdate(0, options.windowBytes - DEFAULT_WINDOW);
    this.timer = setInterval(() => this.onTick(), TICK_MS);
    this.timer.unref();
  }

  /** Whether the server has spoken HTTP/2 to us (its SETTINGS arrived). */
  get ready(): boolean {
    return this.peerReady;
  }

  /** No new requests: the connection failed, was closed, or the server is going away. */
  get closed(): boolean {
    return this.ended || this.goingAway;
  }

  /** Streams this session can still open. */
  get streamIdsLeft(): number {
    return Math.max(0, Math.floor((MAX_STREAM_ID - this.nextStreamId) / 2) + 1);
  }

  /** Called once when the session ends, however it ends: with the reason when it failed or the server went away. */
  onEnd(listener: (reason: string | undefined) => void): void {
    if (this.notified) listener(this.endReason);
    else this.listeners.add(listener);
  }

  /** Called once the server's SETTINGS arrive (at once if they have). */
  onReady(listener: () => void): void {
    if (this.peerReady) listener();
    else this.readyListeners.add(listener);
  }

  /** Sends a request: its header block (HPACK) and body (the stream ends with it). */
  request(headerBlock: Buffer, body: Buffer): H2Request {
    let stream!: Stream;
    const response = new Promise<H2Response>((resolve, reject) => {
      stream = newStream(headerBlock, body, true, resolve, reject, undefined, this.tick);
    });
    this.admit(stream);
    return { response, cancel: (reason) => this.cancel(stream, reason) };
  }

  /** Opens a long-lived stream: its header block now, its body as it is written. */
  openStream(headerBlock: Buffer, listener: StreamListener): H2Stream {
    const stream = newStream(headerBlock, EMPTY, false, ignore, ignore, listener, this.tick);
    // Through stream.listener, which a cancel clears: a cancelled stream's listener hears nothing more.
    stream.resolve = (response) => stream.listener?.onEnd({ headers: response.headers, trailers: response.trailers });
    stream.reject = (error) => stream.listener?.onEnd(error instanceof H2Error ? error : new H2Error(error.message, true, { cause: error }));
    this.admit(stream);
    return {
      write: (data) => this.write(stream, data),
      pause: () => {
        stream.paused = true;
      },
      resume: () => {
        if (!stream.paused) return;
        stream.paused = false;
        if (stream.unacknowledged > 0 && this.streams.get(stream.id) === stream) {
          this.windowUpdate(stream.id, stream.unacknowledged);
          stream.unacknowledged = 0;
        }
      },
      cancel: () => {
        stream.listener = undefined;
        this.cancel(stream, new H2Error('cancelled', false));
      },
    };
  }

  /** Sends a PING; resolves when the server answers it (or sends anything), rejects if the session ends first. */
  ping(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ended) return reject(new Error(this.endReason ?? 'the connection is closed'));
      this.pingWaiters.push({ resolve });
      this.onEnd((reason) => reject(new Error(reason ?? 'the connection closed')));
      this.sendPing();
    });
  }

  /** Ends the session once its requests are answered. */
  close(): void {
    this.goingAway = true;
    for (const stream of this.waiting.splice(0)) stream.reject(new H2Error('the connection is closing', false));
    if (this.streams.size === 0) this.end();
  }

  private admit(stream: Stream): void {
    if (this.closed) stream.reject(new H2Error(this.ended ? (this.endReason ?? 'the connection is closed') : 'the server is going away', false));
    else if (this.nextStreamId > MAX_STREAM_ID) stream.reject(new H2Error('the connection is out of stream ids', false));
    else if (this.streams.size >= this.peerMaxStreams) this.waiting.push(stream);
    else this.open(stream);
  }

  private open(stream: Stream): void {
    stream.id = this.nextStreamId;
    this.nextStreamId += 2;
    stream.sendWindow = this.peerInitialWindow;
    this.streams.set(stream.id, stream);
    const endNow = stream.endStream && stream.body.length === 0;
    this.queueFrame(FrameType.Headers, FLAG_END_HEADERS | (endNow ? FLAG_END_STREAM : 0), stream.id, stream.headerBlock);
    if (stream.body.length) this.sendBody(stream);
  }

  private write(stream: Stream, data: Buffer): void {
    if (stream.endStream || this.ended) return;
    const rest = stream.body.subarray(stream.sent);
    stream.body = rest.length ? Buffer.concat([rest, data]) : data;
    stream.sent = 0;
    if (this.streams.get(stream.id) === stream) this.sendBody(stream);
  }

  /** As much of the body as the windows allow, in frames of at most the peer's size. */
  private sendBody(stream: Stream): void {
    while (stream.sent < stream.body.length) {
      const size = Math.min(stream.body.length - stream.sent, this.connectionSendWindow, stream.sendWindow, this.peerMaxFrame);
      if (size <= 0) {
        this.blocked.add(stream);
        return;
      }
      const end = stream.endStream && stream.sent + size === stream.body.length;
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
    while (this.waiting.length && this.streams.size < this.peerMaxStreams && !this.closed) this.open(this.waiting.shift()!);
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

  private sendPing(): void {
    if (this.pingOutstanding || this.ended) return;
    this.pingOutstanding = true;
    this.pingSentTick = this.tick;
    this.lastPingTick = this.tick;
    this.dataSincePingAck = false;
    this.queueFrame(FrameType.Ping, 0, 0, Buffer.alloc(8));
  }

  private onTick(): void {
    if (this.ended) return;
    this.tick++;
    if (this.receivedSinceTick) {
      this.receivedSinceTick = false;
      this.lastReceivedTick = this.tick;
    }
    const connectTicks = Math.ceil((this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS) / TICK_MS);
    if (!this.peerReady) {
      if (this.tick >= connectTicks) this.destroy(`no HTTP/2 answer from ${this.authority} within ${connectTicks * TICK_MS} ms of connecting`);
      return;
    }
    const keepalive = this.options.keepalive;
    if (!keepalive) return;
    if (this.pingOutstanding) {
      if (this.tick - this.pingSentTick >= Math.ceil(keepalive.timeoutMs / TICK_MS)) {
        this.destroy(`${this.authority} did not answer a PING within ${keepalive.timeoutMs} ms`);
      }
      return;
    }
    const quiet = this.tick - this.lastReceivedTick;
    const stall = Math.ceil(keepalive.stallMs / TICK_MS);
    const needed =
      (quiet >= stall && this.hasRequestOlderThan(stall)) || (this.streams.size > 0 && quiet >= Math.ceil(keepalive.idleMs / TICK_MS));
    // Strictly more than the interval: the server's clock must not see two PINGs closer than it.
    const allowed = this.dataSincePingAck || this.tick - this.lastPingTick > Math.ceil(keepalive.minIntervalMs / TICK_MS);
    if (needed && allowed) this.sendPing();
  }

  private hasRequestOlderThan(ticks: number): boolean {
    for (const stream of this.streams.values()) if (!stream.listener && this.tick - stream.openedTick >= ticks) return true;
    return this.waiting.length > 0;
  }

  /** Any frame from the server proves it alive, a PING's answer or not. */
  private heardFromPeer(): void {
    this.receivedSinceTick = true;
    if (this.pingOutstanding) {
      this.pingOutstanding = false;
      for (const waiter of this.pingWaiters.splice(0)) waiter.resolve();
    }
  }

  private onData(chunk: Buffer): void {
    let data = this.input ? Buffer.concat([this.input, chunk]) : chunk;
    this.input = undefined;
    let offset = 0;
    while (!this.ended && data.length - offset >= FRAME_HEADER) {
      const length = data.readUIntBE(offset, 3);
      if (!this.peerReady && data[offset + 3] !== FrameType.Settings) {
        const start = data.subarray(offset, offset + 48).toString('latin1').replace(/[^\x20-\x7e]+/g, ' ').trim();
        return this.fail('PROTOCOL_ERROR', `the server's first frame was not SETTINGS: not an HTTP/2 server (it began ${JSON.stringify(start)})`);
      }
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
        if (error instanceof ConnectionError) return this.fail(error.code, error.message);
        return this.fail('PROTOCOL_ERROR', (error as Error).message);
      }
    }
    if (offset < data.length && !this.ended) this.input = data.subarray(offset);
  }

  private onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (!this.peerReady && !(type === FrameType.Settings && !(flags & FLAG_ACK))) {
      throw new ConnectionError('PROTOCOL_ERROR', `the server's first frame was of type ${type}, not SETTINGS`);
    }
    if (this.continuation && type !== FrameType.Continuation) throw new ConnectionError('PROTOCOL_ERROR', 'a frame inside a header block');
    this.heardFromPeer();
    switch (type) {
      case FrameType.Data:
        this.requireStream(streamId, 'DATA');
        this.dataSincePingAck = true;
        return this.onDataFrame(flags, streamId, payload);
      case FrameType.Headers: {
        this.requireStream(streamId, 'HEADERS');
        this.dataSincePingAck = true;
        let fragment = payload;
        if (flags & FLAG_PADDED) fragment = unpad(fragment);
        if (flags & FLAG_PRIORITY) {
          if (fragment.length < 5) throw new ConnectionError('FRAME_SIZE_ERROR', 'a HEADERS frame too short for its priority');
          fragment = fragment.subarray(5);
        }
        return this.onHeaderFragment(streamId, fragment, (flags & FLAG_END_HEADERS) !== 0, (flags & FLAG_END_STREAM) !== 0);
      }
      case FrameType.Continuation:
        if (!this.continuation || this.continuation.streamId !== streamId) throw new ConnectionError('PROTOCOL_ERROR', 'a CONTINUATION frame outside a header block');
        return this.onHeaderFragment(streamId, payload, (flags & FLAG_END_HEADERS) !== 0, this.continuation.endStream);
      case FrameType.Priority:
        if (payload.length !== 5) throw new ConnectionError('FRAME_SIZE_ERROR', `a PRIORITY frame of ${payload.length} bytes`);
        return;
      case FrameType.RstStream: {
        this.requireStream(streamId, 'RST_STREAM');
        if (payload.length !== 4) throw new ConnectionError('FRAME_SIZE_ERROR', `an RST_STREAM frame of ${payload.length} bytes`);
        const stream = this.streams.get(streamId);
        if (!stream) return;
        const code = payload.readUInt32BE(0);
        this.finish(stream);
        stream.reject(new H2Error(`the server reset the stream: ${errorName(code)}`, code !== REFUSED_STREAM));
        return;
      }
      case FrameType.Settings:
        if (streamId !== 0) throw new ConnectionError('PROTOCOL_ERROR', `a SETTINGS frame on stream ${streamId}`);
        if (flags & FLAG_ACK) {
          if (payload.length !== 0) throw new ConnectionError('FRAME_SIZE_ERROR', 'a SETTINGS acknowledgement with a payload');
          return;
        }
        if (payload.length % 6 !== 0) throw new ConnectionError('FRAME_SIZE_ERROR', `a SETTINGS frame of ${payload.length} bytes`);
        return this.onSettings(payload);
      case FrameType.Ping:
        if (streamId !== 0) throw new ConnectionError('PROTOCOL_ERROR', `a PING frame on stream ${streamId}`);
        if (payload.length !== 8) throw new ConnectionError('FRAME_SIZE_ERROR', `a PING frame of ${payload.length} bytes`);
        if (!(flags & FLAG_ACK)) this.queueFrame(FrameType.Ping, FLAG_ACK, 0, Buffer.from(payload));
        return;
      case FrameType.GoAway:
        if (streamId !== 0) throw new ConnectionError('PROTOCOL_ERROR', `a GOAWAY frame on stream ${streamId}`);
        if (payload.length < 8) throw new ConnectionError('FRAME_SIZE_ERROR', `a GOAWAY frame of ${payload.length} bytes`);
        return this.onGoAway(payload.readUInt32BE(0) & MAX_STREAM_ID, payload.readUInt32BE(4), payload.subarray(8));
      case FrameType.WindowUpdate:
        if (payload.length !== 4) throw new ConnectionError('FRAME_SIZE_ERROR', `a WINDOW_UPDATE frame of ${payload.length} bytes`);
        return this.onWindowUpdate(streamId, payload.readUInt32BE(0) & MAX_WINDOW);
      case FrameType.PushPromise:
        throw new ConnectionError('PROTOCOL_ERROR', 'a PUSH_PROMISE, which this client disabled');
      default:
        // Unknown frame types are ignored (RFC 9113 4.1, 5.5).
        return;
    }
  }

  /** Frames of a stream: never on stream 0, never on one this client has not opened (server streams are even). */
  private requireStream(streamId: number, what: string): void {
    if (streamId === 0) throw new ConnectionError('PROTOCOL_ERROR', `a ${what} frame on stream 0`);
    if (streamId % 2 === 0 || streamId >= this.nextStreamId) throw new ConnectionError('PROTOCOL_ERROR', `a ${what} frame on stream ${streamId}, which this client never opened`);
  }

  private onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    // Every DATA frame counts against the connection's window, padding included, answered or not.
    this.connectionUnacknowledged += payload.length;
    if (this.connectionUnacknowledged > this.options.windowBytes) throw new ConnectionError('FLOW_CONTROL_ERROR', 'the server sent beyond the connection window');
    if (this.connectionUnacknowledged >= this.options.windowBytes / 2) {
      this.windowUpdate(0, this.connectionUnacknowledged);
      this.connectionUnacknowledged = 0;
    }
    const stream = this.streams.get(streamId);
    if (!stream) return;
    const data = flags & FLAG_PADDED ? unpad(payload) : payload;
    const end = (flags & FLAG_END_STREAM) !== 0;
    if (stream.listener) {
      if (data.length) stream.listener.onData(data);
    } else if (data.length) stream.chunks.push(data);
    if (end) return this.complete(stream);
    stream.unacknowledged += payload.length;
    if (stream.unacknowledged > this.streamWindow) {
      this.queueRstStream(stream.id, 3);
      this.finish(stream);
      stream.reject(new H2Error('the server sent beyond the stream window', true));
      return;
    }
    if (!stream.paused && stream.unacknowledged >= this.streamWindow / 2) {
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
    let fields: HeaderField[];
    try {
      fields = this.decoder.decode(block);
    } catch (error) {
      throw new ConnectionError('COMPRESSION_ERROR', (error as Error).message);
    }
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
      else if (id === SETTINGS_ENABLE_PUSH) {
        if (value > 1) throw new ConnectionError('PROTOCOL_ERROR', `SETTINGS_ENABLE_PUSH of ${value}`);
      } else if (id === SETTINGS_MAX_FRAME_SIZE) {
        if (value < DEFAULT_MAX_FRAME || value > MAX_ALLOWED_FRAME) throw new ConnectionError('PROTOCOL_ERROR', `SETTINGS_MAX_FRAME_SIZE of ${value}`);
        this.peerMaxFrame = value;
      } else if (id === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) throw new ConnectionError('FLOW_CONTROL_ERROR', `an initial window of ${value}`);
        // Applies to open streams too, and may leave their windows negative (RFC 9113 6.9.2).
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      }
    }
    this.queueFrame(FrameType.Settings, FLAG_ACK, 0, Buffer.alloc(0));
    if (!this.peerReady) {
      this.peerReady = true;
      for (const listener of this.readyListeners) listener();
      this.readyListeners.clear();
    }
    this.unblock();
    while (this.waiting.length && this.streams.size < this.peerMaxStreams && !this.closed) this.open(this.waiting.shift()!);
  }

  private onWindowUpdate(streamId: number, increment: number): void {
    if (streamId === 0) {
      if (increment === 0) throw new ConnectionError('PROTOCOL_ERROR', 'a WINDOW_UPDATE of 0 for the connection');
      this.connectionSendWindow += increment;
      if (this.connectionSendWindow > MAX_WINDOW) throw new ConnectionError('FLOW_CONTROL_ERROR', 'the connection window beyond 2^31-1');
    } else {
      const stream = this.streams.get(streamId);
      if (!stream) return;
      stream.sendWindow += increment;
      if (increment === 0 || stream.sendWindow > MAX_WINDOW) {
        this.queueRstStream(stream.id, increment === 0 ? 1 : 3);
        this.finish(stream);
        stream.reject(new H2Error(increment === 0 ? 'a WINDOW_UPDATE of 0' : 'the stream window beyond 2^31-1', true));
        return;
      }
    }
    this.unblock();
  }

  private unblock(): void {
    for (const stream of [...this.blocked]) this.sendBody(stream);
  }

  private onGoAway(lastStreamId: number, code: number, debug: Buffer): void {
    this.goingAway = true;
    const why = `${errorName(code)}${debug.length ? `: ${debug.toString('latin1').slice(0, 200)}` : ''}`;
    // The session's end, once its last stream is answered, reports this as its reason.
    this.endReason ??= `the server is going away (${why})`;
    // Streams above the last one the server took were never processed: the caller may retry them.
    for (const stream of [...this.streams.values()]) {
      if (stream.id <= lastStreamId) continue;
      this.finish(stream);
      stream.reject(new H2Error(`the server is going away (${why})`, false));
    }
    for (const stream of this.waiting.splice(0)) stream.reject(new H2Error(`the server is going away (${why})`, false));
    if (this.streams.size === 0) this.end();
  }

  /** A connection error: tell the server why, and end. */
  private fail(code: ConnectionErrorName, message: string): void {
    const payload = Buffer.alloc(8);
    // The last stream the server started that this side acted on: servers start none here.
    payload.writeUInt32BE(0, 0);
    payload.writeUInt32BE(CONNECTION_ERROR_CODES[code], 4);
    this.queueFrame(FrameType.GoAway, 0, 0, payload);
    this.flush();
    this.destroy(`${code}: ${message}`);
  }

  private end(): void {
    if (this.ended) return;
    this.flush();
    this.ended = true;
    clearInterval(this.timer);
    this.socket.end();
    this.notifyEnd(this.endReason);
  }

  /** Ends the session at once; what is in flight fails. */
  destroy(reason: string, cause?: unknown): void {
    const wasEnded = this.ended;
    this.ended = true;
    this.goingAway = true;
    this.endReason ??= reason;
    clearInterval(this.timer);
    // Sent requests may have been acted on, unless the server never even sent its SETTINGS.
    const processed = this.peerReady;
    for (const stream of [...this.streams.values(), ...this.waiting.splice(0)]) {
      this.streams.delete(stream.id);
      stream.reject(new H2Error(reason, processed && stream.id !== 0, { cause }));
    }
    this.blocked.clear();
    if (!this.socket.destroyed) this.socket.destroy();
    if (!wasEnded) this.notifyEnd(reason);
  }

  private notifyEnd(reason: string | undefined): void {
    this.notified = true;
    for (const listener of this.listeners) listener(reason);
    this.listeners.clear();
  }
}

const EMPTY = Buffer.alloc(0);
const ignore = (): void => {};

function newStream(
  headerBlock: Buffer,
  body: Buffer,
  endStream: boolean,
  resolve: (response: H2Response) => void,
  reject: (error: Error) => void,
  listener: StreamListener | undefined,
  tick: number,
): Stream {
  return {
    id: 0,
    resolve,
    reject,
    headerBlock,
    body,
    sent: 0,
    endStream,
    sendWindow: 0,
    unacknowledged: 0,
    chunks: [],
    headers: undefined,
    trailers: [],
    listener,
    paused: false,
    openedTick: tick,
  };
}

/** A padded frame's payload without its pad length octet and padding. */
function unpad(payload: Buffer): Buffer {
  if (payload.length === 0) throw new ConnectionError('FRAME_SIZE_ERROR', 'a padded frame without its pad length');
  const padding = payload[0]!;
  if (padding >= payload.length) throw new ConnectionError('PROTOCOL_ERROR', 'padding longer than the frame');
  return payload.subarray(1, payload.length - padding);
}

/** A socket error as a sentence, TLS failures named for what to check. */
function describeSocketError(error: Error & { code?: string }): string {
  const code = error.code ?? '';
  // OpenSSL's messages carry its source location; the first line is the sentence.
  const text = error.message.split('\n')[0]!.replace(/^[0-9A-F]+:error:[0-9A-F]+:SSL routines:[a-z0-9_]+:/, '').replace(/:\.\.\/deps\/openssl\S*/, '');
  if (/ALERT/.test(code)) return `the server refused the TLS handshake, likely this client's certificate (or its absence): ${text} (${code})`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/.test(code)) return `the server's certificate is not trusted: ${text} (${code})`;
  return code && !text.includes(code) ? `${text} (${code})` : text;
}
