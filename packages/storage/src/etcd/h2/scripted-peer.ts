// Test support: an HTTP/2 server that says exactly what a test scripts, frame by frame, so that the
// client can be tried on what etcd never does on its own (GOAWAY with streams in flight, refused
// streams, windows changed mid-stream, padding, CONTINUATION, malformed frames, silence).
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { encodeHeaders, HpackDecoder, type HeaderField } from './hpack.js';

export const FRAME = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8 } as const;

export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

export function encodeFrame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}

export const u32 = (...values: number[]): Buffer => {
  const buffer = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => buffer.writeUInt32BE(value, 4 * i));
  return buffer;
};

/** A gRPC message frame (uncompressed). */
export const grpcMessage = (message: Buffer): Buffer => Buffer.concat([Buffer.from([0]), u32(message.length), message]);

/** One client connection, seen from the server's side. */
export class PeerConnection {
  private buffer = Buffer.alloc(0);
  private prefaceSeen = false;
  private readonly frames: Frame[] = [];
  private waiter: (() => void) | undefined;
  private readonly decoder = new HpackDecoder();
  /** Every frame the client sent, in order. */
  readonly received: Frame[] = [];
  readonly closed: Promise<void>;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    this.closed.then(() => this.waiter?.());
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    if (!this.prefaceSeen) {
      if (this.buffer.length < PREFACE.length) return;
      if (this.buffer.subarray(0, PREFACE.length).toString('latin1') !== PREFACE) throw new Error('no client preface');
      this.buffer = this.buffer.subarray(PREFACE.length);
      this.prefaceSeen = true;
    }
    while (this.buffer.length >= 9) {
      const length = this.buffer.readUIntBE(0, 3);
      if (this.buffer.length < 9 + length) break;
      const frame = { type: this.buffer[3]!, flags: this.buffer[4]!, streamId: this.buffer.readUInt32BE(5) & 0x7fffffff, payload: Buffer.from(this.buffer.subarray(9, 9 + length)) };
      this.buffer = this.buffer.subarray(9 + length);
      this.received.push(frame);
      this.frames.push(frame);
    }
    this.waiter?.();
  }

  /** The next frame the client sent of `type` (others before it are passed over), within `timeoutMs`. */
  async next(type: number, timeoutMs = 3000, match: (frame: Frame) => boolean = () => true): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.frames.findIndex((frame) => frame.type === type && match(frame));
      if (index >= 0) return this.frames.splice(index, 1)[0]!;
      if (this.socket.destroyed) throw new Error(`the connection closed before a frame of type ${type}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no frame of type ${type} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Whether the client sent a frame of `type` so far (consumed or not). */
  sent(type: number): Frame[] {
    return this.received.filter((frame) => frame.type === type);
  }

  /** The request headers of a HEADERS frame the client sent. */
  decodeHeaders(frame: Frame): HeaderField[] {
    return this.decoder.decode(frame.payload);
  }

  send(type: number, flags: number, streamId: number, payload?: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(encodeFrame(type, flags, streamId, payload));
  }

  raw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  settings(entries: Array<[id: number, value: number]> = []): void {
    const payload = Buffer.alloc(entries.length * 6);
    entries.forEach(([id, value], i) => {
      payload.writeUInt16BE(id, i * 6);
      payload.writeUInt32BE(value, i * 6 + 2);
    });
    this.send(FRAME.SETTINGS, 0, 0, payload);
  }

  headers(streamId: number, fields: HeaderField[], endStream = false): void {
    this.send(FRAME.HEADERS, FLAG.END_HEADERS | (endStream ? FLAG.END_STREAM : 0), streamId, encodeHeaders(fields));
  }

  data(streamId: number, data: Buffer, endStream = false): void {
    this.send(FRAME.DATA, endStream ? FLAG.END_STREAM : 0, streamId, data);
  }

  /** A whole gRPC answer: headers, the message, trailers with status 0. */
  answer(streamId: number, message: Buffer): void {
    this.headers(streamId, [[':status', '200'], ['content-type', 'application/grpc']]);
    this.data(streamId, grpcMessage(message));
    this.headers(streamId, [['grpc-status', '0']], true);
  }

  goaway(lastStreamId: number, code = 0, debug = ''): void {
    this.send(FRAME.GOAWAY, 0, 0, Buffer.concat([u32(lastStreamId, code), Buffer.from(debug)]));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export class ScriptedPeer {
  private readonly pending: PeerConnection[] = [];
  private waiter: (() => void) | undefined;
  readonly connections: PeerConnection[] = [];

  private constructor(private readonly server: Server) {
    server.on('connection', (socket) => {
      const connection = new PeerConnection(socket);
      this.connections.push(connection);
      this.pending.push(connection);
      this.waiter?.();
    });
  }

  static async listen(): Promise<ScriptedPeer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new ScriptedPeer(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next client connection, once its preface has arrived. */
  async accept(timeoutMs = 3000): Promise<PeerConnection> {
    const deadline = Date.now() + timeoutMs;
    while (!this.pending.length) {
      if (Date.now() > deadline) throw new Error('no connection');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const connection = this.pending.shift()!;
    await connection.next(FRAME.SETTINGS, timeoutMs);
    return connection;
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
