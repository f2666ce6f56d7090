// Kubernetes' Protobuf representation of one object: the 4-byte prefix, then a runtime.Unknown whose
// typeMeta names the object's apiVersion and kind and whose raw is the kind's message.
import protobuf from 'protobufjs';
import { compile, type JsonObject, type MessageCodec } from './compile.js';
import { ProtobufError } from './errors.js';
import { findProtobufKind, protobufKinds, splitAPIVersion, type GroupVersionKind } from './kinds.js';
import { messageType } from './schema.js';

/** Every Protobuf body starts with these bytes ("k8s" and the encoding style 0: an Unknown follows). */
export const PROTOBUF_PREFIX: Uint8Array = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);
// Our own copy, which a caller writing into the exported array cannot change.
const PREFIX = [0x6b, 0x38, 0x73, 0x00] as const;

// Compiled on first use, once every kind has registered (the registered rules shape the code).
const codecs = new Map<string, MessageCodec>();

export function codecOf(apiVersion: string, kind: string): MessageCodec {
  const { group, version } = splitAPIVersion(apiVersion);
  const registered = findProtobufKind(group, version, kind);
  if (!registered) throw new ProtobufError('NotRegistered', `${kind} in ${apiVersion || 'no apiVersion'} has no Protobuf form`);
  if (!codecs.has(registered.message)) {
    // Every registered kind not compiled yet, in one module: nested messages are shared.
    const roots = protobufKinds().filter((k) => !codecs.has(k.message)).map((k) => messageType(k.message));
    for (const [name, compiled] of compile(roots)) if (!codecs.has(name)) codecs.set(name, compiled);
  }
  return codecs.get(registered.message)!;
}

export function requireString(json: JsonObject, key: string): string {
  const value = json[key];
  if (typeof value !== 'string' || value === '') {
    throw new ProtobufError('InvalidValue', `${key}: the object must have a non-empty string ${key}`);
  }
  return value;
}

/**
 * A Kubernetes object in its JSON form (apiVersion, kind, metadata, the kind's fields; times as
 * RFC 3339 text, quantities as text, int64 as numbers) -> prefix + Unknown{typeMeta, raw, "", ""}.
 * Fields the message does not have are dropped (list items' apiVersion and kind among them).
 * Throws ProtobufError NotRegistered for a kind without a Protobuf form, InvalidValue for a field
 * whose value does not fit its message.
 */
export function encodeObject(json: object): Uint8Array {
  const object = json as JsonObject;
  const apiVersion = requireString(object, 'apiVersion');
  const kind = requireString(object, 'kind');
  const codec = codecOf(apiVersion, kind);
  const writer = protobuf.Writer.create();
  // Each prefix byte is below 0x80, so its varint is the byte itself.
  for (const byte of PREFIX) writer.uint32(byte);
  writer.uint32((1 << 3) | 2).fork();
  writer.uint32((1 << 3) | 2).string(apiVersion);
  writer.uint32((2 << 3) | 2).string(kind);
  writer.ldelim();
  // In one pass, as upstream's NestedMarshalTo: the object is written straight into Unknown.raw.
  writer.uint32((2 << 3) | 2).fork();
  try {
    codec.encode(object, writer);
  } catch (err) {
    if (err instanceof ProtobufError) throw new ProtobufError(err.reason, `${kind}.${err.message}`, { cause: err });
    throw err;
  }
  writer.ldelim();
  // contentEncoding and contentType, empty: written all the same, as upstream does.
  writer.uint32((3 << 3) | 2).string('');
  writer.uint32((4 << 3) | 2).string('');
  return writer.finish();
}

/** A reader over the bytes: node's Buffer reader (native UTF-8 decoding), without copying. */
export function readerOf(bytes: Uint8Array): protobuf.Reader {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return protobuf.Reader.create(buffer);
}

/** Runs a read, turning protobufjs' errors about bad bytes into ProtobufError Malformed. */
function reading<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ProtobufError) throw new ProtobufError(err.reason, `${what}: ${err.message}`, { cause: err });
    throw new ProtobufError('Malformed', `${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

interface Envelope {
  apiVersion: string;
  kind: string;
  rawStart: number;
  rawEnd: number;
  contentEncoding: string;
}

// runtime.Unknown: typeMeta 1 {apiVersion 1, kind 2}, raw 2, contentEncoding 3, contentType 4.
function readEnvelope(r: protobuf.Reader): Envelope {
  const e: Envelope = { apiVersion: '', kind: '', rawStart: r.pos, rawEnd: r.pos, contentEncoding: '' };
  while (r.pos < r.len) {
    const t = r.tag();
    if (t === 10) {
      const length = r.uint32();
      const end = r.pos + length;
      if (end > r.len) throw new ProtobufError('Malformed', 'typeMeta runs past the end');
      while (r.pos < end) {
        const u = r.tag();
        if (u === 10) e.apiVersion = r.string();
        else if (u === 18) e.kind = r.string();
        else r.skipType(u & 7, 0, u >>> 3);
      }
      if (r.pos !== end) throw new ProtobufError('Malformed', 'typeMeta runs past the end');
    } else if (t === 18) {
      const length = r.uint32();
      e.rawStart = r.pos;
      e.rawEnd = r.pos + length;
      if (e.rawEnd > r.len) throw new ProtobufError('Malformed', 'raw runs past the end');
      r.pos = e.rawEnd;
    } else if (t === 26) {
      e.contentEncoding = r.string();
    } else {
      r.skipType(t & 7, 0, t >>> 3);
    }
  }
  return e;
}

/**
 * Prefix + Unknown -> the object's JSON form with kind and apiVersion set (from the envelope; where
 * it lacks them, from `expected`, as upstream's decoder defaults them). Fields Go would omit are
 * omitted. Throws ProtobufError: MissingPrefix (answer 400), Malformed (400), NotRegistered (the
 * kind has no Protobuf form: 415 for a request body). The kind is the envelope's: comparing it with
 * the one the request path expects is the caller's business.
 */
export function decodeObject(bytes: Uint8Array, expected?: GroupVersionKind): JsonObject {
  if (bytes.length === 0) throw new ProtobufError('Malformed', 'empty body');
  if (!hasPrefix(bytes)) {
    throw new ProtobufError(
      'MissingPrefix',
      `missing prefix: the data does not appear to be a protobuf message, expected prefix [${PREFIX.join(' ')}]`,
    );
  }
  if (bytes.length === PREFIX.length) throw new ProtobufError('Malformed', 'empty body after the prefix');
  const r = readerOf(bytes);
  r.pos = PREFIX.length;
  const envelope = reading('Unknown', () => readEnvelope(r));
  if (envelope.contentEncoding) {
    throw new ProtobufError('Malformed', `unsupported contentEncoding ${JSON.stringify(envelope.contentEncoding)}`);
  }
  let { apiVersion, kind } = envelope;
  // Upstream's copyKindDefaults: the caller's kind and group/version fill what the envelope lacks.
  if (expected) {
    if (!kind) kind = expected.kind;
    if (!splitAPIVersion(apiVersion).version && expected.version) {
      apiVersion = expected.group ? `${expected.group}/${expected.version}` : expected.version;
    }
  }
  if (!kind) throw new ProtobufError('Malformed', 'the object has no kind');
  if (!apiVersion) throw new ProtobufError('Malformed', 'the object has no apiVersion');
  const codec = codecOf(apiVersion, kind);
  r.pos = envelope.rawStart;
  const fields = reading(kind, () => codec.decode(r, envelope.rawEnd));
  return { kind, apiVersion, ...fields };
}

/** Whether the bytes start with the Protobuf prefix. */
export function hasPrefix(bytes: Uint8Array): boolean {
  if (bytes.length < PREFIX.length) return false;
  for (let i = 0; i < PREFIX.length; i++) if (bytes[i] !== PREFIX[i]) return false;
  return true;
}
