// The etcd messages this client sends and reads (Range, Txn and Compact of etcdserverpb.KV, Watch,
// Maintenance's Status, Lease's LeaseGrant), in protobuf's wire format with etcd's field numbers. Written by hand: a generic codec spends more on
// its reflection and on 64-bit integer objects than these small messages cost to encode, and every
// revision etcd hands out fits in a double.

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** Bytes of `value` as a varint. */
function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value = Math.floor(value / 0x80);
    size++;
  }
  return size;
}

/** Bytes of a length-delimited field of `length` bytes (tags here are all one byte: fields below 16). */
const delimitedSize = (length: number): number => 1 + varintSize(length) + length;
const uintSize = (value: number): number => (value ? 1 + varintSize(value) : 0);

/** Bytes of a 64-bit value as a varint (a lease ID: etcd's are beyond a double's exact range). */
function bigVarintSize(value: bigint): number {
  let size = 1;
  for (let rest = BigInt.asUintN(64, value); rest > 0x7fn; rest >>= 7n) size++;
  return size;
}
const bigIntSize = (value: bigint): number => (value ? 1 + bigVarintSize(value) : 0);
const boolSize = (value: boolean): number => (value ? 2 : 0);

/**
 * A protobuf writer into a buffer of the message's exact size, computed first: nested messages
 * are written in place, where a writer per message would copy the value (an object of any size)
 * once per level.
 */
class Writer {
  private readonly buffer: Buffer;
  private length = 0;

  constructor(size: number) {
    this.buffer = Buffer.allocUnsafe(size);
  }

  /** A non-negative integer below 2^53. */
  varint(value: number): this {
    while (value > 0x7f) {
      this.buffer[this.length++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buffer[this.length++] = value;
    return this;
  }

  private tag(field: number, wireType: number): this {
    return this.varint(field * 8 + wireType);
  }

  /** An integer field; zero (proto3's default) is left out. */
  uint(field: number, value: number): this {
    return value ? this.tag(field, VARINT).varint(value) : this;
  }

  /** An int64 field (two's complement, as Go writes one); zero is left out. */
  bigInt(field: number, value: bigint): this {
    if (!value) return this;
    this.tag(field, VARINT);
    let rest = BigInt.asUintN(64, value);
    while (rest > 0x7fn) {
      this.buffer[this.length++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.buffer[this.length++] = Number(rest);
    return this;
  }

  bool(field: number, value: boolean): this {
    return value ? this.tag(field, VARINT).varint(1) : this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, LENGTH_DELIMITED).varint(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
    return this;
  }

  /** A nested message of `size` bytes, which `write` writes. */
  message(field: number, size: number, write: (writer: this) => void): this {
    this.tag(field, LENGTH_DELIMITED).varint(size);
    const end = this.length + size;
    write(this);
    if (this.length !== end) throw new Error(`protobuf writer: a nested message of ${size} bytes took ${this.length - end + size}`);
    return this;
  }

  finish(): Buffer {
    if (this.length !== this.buffer.length) throw new Error(`protobuf writer: ${this.length} of ${this.buffer.length} bytes written`);
    return this.buffer;
  }
}

/** A protobuf reader over one message; unknown fields are skipped. */
class Reader {
  private position: number;

  constructor(
    private readonly buffer: Buffer,
    start = 0,
    private readonly end = buffer.length,
  ) {
    this.position = start;
  }

  get done(): boolean {
    return this.position >= this.end;
  }

  /** A varint as a double (exact below 2^53, which revisions and counts are). */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.position >= this.end) throw new Error('etcd response: truncated varint');
      const byte = this.buffer[this.position++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
      if (scale > 2 ** 70) throw new Error('etcd response: varint too long');
    }
  }

  /** A varint as a signed 64-bit integer (a lease ID). */
  bigVarint(): bigint {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      if (this.position >= this.end) throw new Error('etcd response: truncated varint');
      const byte = this.buffer[this.position++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asIntN(64, value);
      shift += 7n;
      if (shift > 63n) throw new Error('etcd response: varint too long');
    }
  }

  /** The next field's number and wire type, or undefined at the end. */
  field(): { number: number; wireType: number } | undefined {
    if (this.done) return undefined;
    const tag = this.varint();
    return { number: Math.floor(tag / 8), wireType: tag % 8 };
  }

  /** A length-delimited field as a reader over its bytes. */
  nested(): Reader {
    const length = this.varint();
    const start = this.position;
    this.position += length;
    if (this.position > this.end) throw new Error('etcd response: truncated field');
    return new Reader(this.buffer, start, this.position);
  }

  bytes(): Buffer {
    const length = this.varint();
    const start = this.position;
    this.position += length;
    if (this.position > this.end) throw new Error('etcd response: truncated field');
    return this.buffer.subarray(start, this.position);
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === FIXED64) this.position += 8;
    else if (wireType === LENGTH_DELIMITED) {
      // Not `position += varint()`: that reads position before varint() moves it.
      const length = this.varint();
      this.position += length;
    }
    else if (wireType === FIXED32) this.position += 4;
    else throw new Error(`etcd response: unsupported wire type ${wireType}`);
  }
}

export interface RangeRequest {
  key: Uint8Array;
  rangeEnd?: Uint8Array;
  limit?: number;
  revision?: number;
  countOnly?: boolean;
}

export interface RawKeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  /** Puts since the key was created (1 after the first). */
  version: number;
}

export interface RangeResponse {
  /** etcd's current revision when it answered. */
  revision: number;
  kvs: RawKeyValue[];
  more: boolean;
  count: number;
}

/** One request of a transaction: a range, a put, or a delete of one key. */
export type RequestOp =
  | { range: RangeRequest }
  /** lease: the lease the key is attached to (0 or absent: none, which detaches it from any). */
  | { put: { key: Uint8Array; value: Uint8Array; lease?: bigint } }
  | { deleteRange: { key: Uint8Array; prevKv?: boolean } };

/**
 * An equality compare on a key's mod revision (the store's) or version (the compactor's); etcd's
 * Compare.CompareResult Equal is 0.
 */
export type EqualCompare = { key: Uint8Array; result: 'Equal' } & ({ modRevision: number } | { version: number });

export interface TxnRequest {
  compare: EqualCompare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export type ResponseOp =
  | { range: RangeResponse }
  | { put: Record<string, never> }
  | { deleteRange: { deleted: number; prevKvs: RawKeyValue[] } };

export interface TxnResponse {
  revision: number;
  succeeded: boolean;
  responses: ResponseOp[];
}

// Field numbers: etcd's api/etcdserverpb/rpc.proto and api/mvccpb/kv.proto.
const COMPARE_TARGET_MOD = 2;
const COMPARE_VERSION_FIELD = 4;
const COMPARE_MOD_REVISION_FIELD = 6;

function rangeSize(request: RangeRequest): number {
  return (
    delimitedSize(request.key.length) +
    (request.rangeEnd ? delimitedSize(request.rangeEnd.length) : 0) +
    uintSize(request.limit ?? 0) +
    uintSize(request.revision ?? 0) +
    boolSize(request.countOnly ?? false)
  );
}

function writeRange(writer: Writer, request: RangeRequest): void {
  writer.bytes(1, request.key);
  if (request.rangeEnd) writer.bytes(2, request.rangeEnd);
  writer.uint(3, request.limit ?? 0).uint(4, request.revision ?? 0).bool(9, request.countOnly ?? false);
}

export function encodeRangeRequest(request: RangeRequest): Buffer {
  const writer = new Writer(rangeSize(request));
  writeRange(writer, request);
  return writer.finish();
}

/** The size of the one message a RequestOp holds (its oneof). */
function requestOpInnerSize(op: RequestOp): number {
  if ('range' in op) return rangeSize(op.range);
  if ('put' in op) return delimitedSize(op.put.key.length) + delimitedSize(op.put.value.length) + bigIntSize(op.put.lease ?? 0n);
  return delimitedSize(op.deleteRange.key.length) + boolSize(op.deleteRange.prevKv ?? false);
}

const requestOpSize = (op: RequestOp): number => delimitedSize(requestOpInnerSize(op));

function writeRequestOp(writer: Writer, op: RequestOp): void {
  const size = requestOpInnerSize(op);
  if ('range' in op) writer.message(1, size, (range) => writeRange(range, op.range));
  else if ('put' in op) writer.message(2, size, (put) => put.bytes(1, op.put.key).bytes(2, op.put.value).bigInt(3, op.put.lease ?? 0n));
  else writer.message(3, size, (del) => del.bytes(1, op.deleteRange.key).bool(3, op.deleteRange.prevKv ?? false));
}

const compareValue = (compare: EqualCompare): number => ('modRevision' in compare ? compare.modRevision : compare.version);

/**
 * The target (Mod: 2 bytes; Version is 0, proto3's default, not written), the key, and the value,
 * which sits in a oneof: written even when 0.
 */
const compareSize = (compare: EqualCompare): number =>
  ('modRevision' in compare ? 2 : 0) + delimitedSize(compare.key.length) + 1 + varintSize(compareValue(compare));

export function encodeTxnRequest(request: TxnRequest): Buffer {
  let size = 0;
  for (const compare of request.compare) size += delimitedSize(compareSize(compare));
  for (const op of request.success) size += delimitedSize(requestOpSize(op));
  for (const op of request.failure) size += delimitedSize(requestOpSize(op));
  const writer = new Writer(size);
  for (const compare of request.compare) {
    // result Equal is 0, proto3's default: not written (create-if-absent compares against 0).
    writer.message(1, compareSize(compare), (c) => {
      const byMod = 'modRevision' in compare;
      if (byMod) c.uint(2, COMPARE_TARGET_MOD);
      c.bytes(3, compare.key);
      c.varint((byMod ? COMPARE_MOD_REVISION_FIELD : COMPARE_VERSION_FIELD) * 8 + VARINT).varint(compareValue(compare));
    });
  }
  for (const op of request.success) writer.message(2, requestOpSize(op), (w) => writeRequestOp(w, op));
  for (const op of request.failure) writer.message(3, requestOpSize(op), (w) => writeRequestOp(w, op));
  return writer.finish();
}

function readHeaderRevision(reader: Reader): number {
  let revision = 0;
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 3 && field.wireType === VARINT) revision = reader.varint();
    else reader.skip(field.wireType);
  }
  return revision;
}

function readKeyValue(reader: Reader): RawKeyValue {
  const kv: RawKeyValue = { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0, version: 0 };
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 1 && field.wireType === LENGTH_DELIMITED) kv.key = reader.bytes();
    else if (field.number === 2 && field.wireType === VARINT) kv.createRevision = reader.varint();
    else if (field.number === 3 && field.wireType === VARINT) kv.modRevision = reader.varint();
    else if (field.number === 4 && field.wireType === VARINT) kv.version = reader.varint();
    else if (field.number === 5 && field.wireType === LENGTH_DELIMITED) kv.value = reader.bytes();
    else reader.skip(field.wireType);
  }
  return kv;
}

const EMPTY = Buffer.alloc(0);

function readRange(reader: Reader): RangeResponse {
  const response: RangeResponse = { revision: 0, kvs: [], more: false, count: 0 };
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 1 && field.wireType === LENGTH_DELIMITED) response.revision = readHeaderRevision(reader.nested());
    else if (field.number === 2 && field.wireType === LENGTH_DELIMITED) response.kvs.push(readKeyValue(reader.nested()));
    else if (field.number === 3 && field.wireType === VARINT) response.more = reader.varint() !== 0;
    else if (field.number === 4 && field.wireType === VARINT) response.count = reader.varint();
    else reader.skip(field.wireType);
  }
  return response;
}

export function decodeRangeResponse(message: Buffer): RangeResponse {
  return readRange(new Reader(message));
}

function readDeleteRange(reader: Reader): { deleted: number; prevKvs: RawKeyValue[] } {
  const response = { deleted: 0, prevKvs: [] as RawKeyValue[] };
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 2 && field.wireType === VARINT) response.deleted = reader.varint();
    else if (field.number === 3 && field.wireType === LENGTH_DELIMITED) response.prevKvs.push(readKeyValue(reader.nested()));
    else reader.skip(field.wireType);
  }
  return response;
}

function readResponseOp(reader: Reader): ResponseOp | undefined {
  let op: ResponseOp | undefined;
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.wireType !== LENGTH_DELIMITED) reader.skip(field.wireType);
    else if (field.number === 1) op = { range: readRange(reader.nested()) };
    else if (field.number === 2) {
      reader.nested();
      op = { put: {} };
    } else if (field.number === 3) op = { deleteRange: readDeleteRange(reader.nested()) };
    else reader.skip(field.wireType);
  }
  return op;
}

export function decodeTxnResponse(message: Buffer): TxnResponse {
  const reader = new Reader(message);
  const response: TxnResponse = { revision: 0, succeeded: false, responses: [] };
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 1 && field.wireType === LENGTH_DELIMITED) response.revision = readHeaderRevision(reader.nested());
    else if (field.number === 2 && field.wireType === VARINT) response.succeeded = reader.varint() !== 0;
    else if (field.number === 3 && field.wireType === LENGTH_DELIMITED) {
      const op = readResponseOp(reader.nested());
      if (op) response.responses.push(op);
    } else reader.skip(field.wireType);
  }
  return response;
}

/** CompactionRequest: compacts history below `revision`. */
export function encodeCompactionRequest(revision: number, physical = false): Buffer {
  const writer = new Writer(uintSize(revision) + boolSize(physical));
  return writer.uint(1, revision).bool(2, physical).finish();
}

export const EMPTY_REQUEST = EMPTY;

/** LeaseGrantRequest: a lease of `ttlSeconds`, its ID chosen by etcd. */
export function encodeLeaseGrantRequest(ttlSeconds: number): Buffer {
  return new Writer(uintSize(ttlSeconds)).uint(1, ttlSeconds).finish();
}

export interface LeaseGrantResponse {
  id: bigint;
  /** The TTL etcd granted, in seconds (at least its minimum lease TTL). */
  ttl: number;
  /** etcd's refusal, when it gave no lease. */
  error: string;
}

export function decodeLeaseGrantResponse(message: Buffer): LeaseGrantResponse {
  const reader = new Reader(message);
  const response: LeaseGrantResponse = { id: 0n, ttl: 0, error: '' };
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 2 && field.wireType === VARINT) response.id = reader.bigVarint();
    else if (field.number === 3 && field.wireType === VARINT) response.ttl = reader.varint();
    else if (field.number === 4 && field.wireType === LENGTH_DELIMITED) response.error = reader.bytes().toString('utf8');
    else reader.skip(field.wireType);
  }
  return response;
}

export interface StatusResponse {
  revision: number;
  /** The member's etcd version, e.g. "3.4.23". */
  version: string;
  /** The member id of the leader it knows of; 0: none. */
  leader: number;
}

export function decodeStatusResponse(message: Buffer): StatusResponse {
  const reader = new Reader(message);
  const response: StatusResponse = { revision: 0, version: '', leader: 0 };
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 1 && field.wireType === LENGTH_DELIMITED) response.revision = readHeaderRevision(reader.nested());
    else if (field.number === 2 && field.wireType === LENGTH_DELIMITED) response.version = reader.bytes().toString('utf8');
    else if (field.number === 4 && field.wireType === VARINT) response.leader = reader.varint();
    else reader.skip(field.wireType);
  }
  return response;
}

export interface WatchCreateRequest {
  key: Uint8Array;
  rangeEnd: Uint8Array;
  startRevision: number;
  progressNotify: boolean;
  prevKv: boolean;
}

/** WatchRequest { create_request }. */
export function encodeWatchCreateRequest(request: WatchCreateRequest): Buffer {
  const inner =
    delimitedSize(request.key.length) +
    delimitedSize(request.rangeEnd.length) +
    uintSize(request.startRevision) +
    boolSize(request.progressNotify) +
    boolSize(request.prevKv);
  const writer = new Writer(delimitedSize(inner));
  writer.message(1, inner, (w) =>
    w.bytes(1, request.key).bytes(2, request.rangeEnd).uint(3, request.startRevision).bool(4, request.progressNotify).bool(6, request.prevKv),
  );
  return writer.finish();
}

/** WatchRequest { progress_request {} }: etcd answers with a progress notification. */
export const WATCH_PROGRESS_REQUEST: Buffer = Buffer.from([3 * 8 + LENGTH_DELIMITED, 0]);

export interface WatchEventMessage {
  type: 'put' | 'delete';
  kv: RawKeyValue;
  prevKv?: RawKeyValue;
}

export interface WatchResponse {
  revision: number;
  watchId: number;
  created: boolean;
  canceled: boolean;
  compactRevision: number;
  cancelReason: string;
  events: WatchEventMessage[];
}

function readEvent(reader: Reader): WatchEventMessage {
  let type: 'put' | 'delete' = 'put';
  let kv: RawKeyValue | undefined;
  let prevKv: RawKeyValue | undefined;
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 1 && field.wireType === VARINT) type = reader.varint() === 1 ? 'delete' : 'put';
    else if (field.number === 2 && field.wireType === LENGTH_DELIMITED) kv = readKeyValue(reader.nested());
    else if (field.number === 3 && field.wireType === LENGTH_DELIMITED) prevKv = readKeyValue(reader.nested());
    else reader.skip(field.wireType);
  }
  const event: WatchEventMessage = { type, kv: kv ?? { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0, version: 0 } };
  if (prevKv) event.prevKv = prevKv;
  return event;
}

export function decodeWatchResponse(message: Buffer): WatchResponse {
  const reader = new Reader(message);
  const response: WatchResponse = { revision: 0, watchId: 0, created: false, canceled: false, compactRevision: 0, cancelReason: '', events: [] };
  for (let field = reader.field(); field; field = reader.field()) {
    if (field.number === 1 && field.wireType === LENGTH_DELIMITED) response.revision = readHeaderRevision(reader.nested());
    else if (field.number === 2 && field.wireType === VARINT) response.watchId = reader.varint();
    else if (field.number === 3 && field.wireType === VARINT) response.created = reader.varint() !== 0;
    else if (field.number === 4 && field.wireType === VARINT) response.canceled = reader.varint() !== 0;
    else if (field.number === 5 && field.wireType === VARINT) response.compactRevision = reader.varint();
    else if (field.number === 6 && field.wireType === LENGTH_DELIMITED) response.cancelReason = reader.bytes().toString('utf8');
    else if (field.number === 11 && field.wireType === LENGTH_DELIMITED) response.events.push(readEvent(reader.nested()));
    else reader.skip(field.wireType);
  }
  return response;
}
