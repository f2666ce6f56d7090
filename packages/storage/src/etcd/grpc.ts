// gRPC over HTTP/2 as etcd speaks it: length-prefixed messages, the status in the trailers (or, for
// a "trailers-only" answer, in the headers), and the errors a call ends with.
import type { HeaderField } from './h2/hpack.js';

export const GRPC_UNAVAILABLE = 14;

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

/** The call never reached an etcd that answered it: no session, a broken stream, or the deadline. */
export class GrpcUnavailableError extends Error {
  override readonly name = 'GrpcUnavailableError';
}

/** A message as gRPC frames it: not compressed, a 4-byte big-endian length, the bytes. */
export function frame(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(5 + message.length);
  framed[0] = 0;
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  return framed;
}

/** The one message of a unary answer. */
export function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new GrpcUnavailableError(`etcd answered ${body.length} bytes, not a gRPC message`);
  if (body[0] !== 0) throw new GrpcUnavailableError('etcd answered a compressed message, which was not asked for');
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw new GrpcUnavailableError('etcd answered a truncated gRPC message');
  return body.subarray(5, 5 + length);
}

/** The status of a gRPC answer, from its trailers or, for a "trailers-only" answer, its headers. */
export function grpcStatus(fields: readonly HeaderField[]): { status: number; message: string } | undefined {
  let status: string | undefined;
  let message = '';
  for (const [name, value] of fields) {
    if (name === 'grpc-status') status = value;
    else if (name === 'grpc-message') message = value;
  }
  if (status === undefined) return undefined;
  try {
    return { status: Number(status), message: decodeURIComponent(message) };
  } catch {
    return { status: Number(status), message };
  }
}

/** Cuts a stream's body pieces into its gRPC messages, however the pieces fall. */
export class MessageReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** The whole messages that `chunk` completes. */
  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const messages: Buffer[] = [];
    for (;;) {
      if (this.pendingBytes < 5) break;
      const head = this.pending[0]!.length >= 5 ? this.pending[0]! : this.joined();
      if (head[0] !== 0) throw new GrpcUnavailableError('etcd sent a compressed message, which was not asked for');
      const length = head.readUInt32BE(1);
      if (this.pendingBytes < 5 + length) break;
      const all = this.joined();
      messages.push(all.subarray(5, 5 + length));
      const rest = all.subarray(5 + length);
      this.pending = rest.length ? [rest] : [];
      this.pendingBytes = rest.length;
    }
    return messages;
  }

  private joined(): Buffer {
    if (this.pending.length > 1) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0]!;
  }
}
