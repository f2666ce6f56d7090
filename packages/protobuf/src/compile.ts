// Each message's converter between the wire and the JSON form, generated once from the message types
// read from the .proto files. Reading goes straight from bytes to the JSON form and writing straight
// from the JSON form to bytes, with no message objects in between, following upstream's JSON rules:
// which fields Go's omitempty drops, which it always writes, which are pointers (present even when
// zero), and the types whose JSON is not their message (Time, MicroTime, Quantity, FieldsV1,
// ExtraValue, apiextensions' JSON, and the unions of unions.ts).
import protobuf from 'protobufjs';
import { ProtobufError } from './errors.js';
import { fullName, emitOf, isInline, jsonName, markCompiled } from './emit.js';
import { APIEXTENSIONS, META } from './schema.js';
import { formatMicroTime, formatTime, parseTime } from './time.js';
import { UNIONS, unionSource } from './unions.js';

export type JsonObject = { [key: string]: unknown };

/** A message's converter. */
export interface MessageCodec {
  /** The message's full name, such as `k8s.io.api.rbac.v1.Role`. */
  readonly name: string;
  /** Reads the message that lies between `reader.pos` and `end` into its JSON form. */
  decode(reader: protobuf.Reader, end: number): JsonObject;
  /** Writes the fields of a JSON form (no tag, no length) to `writer`. */
  encode(json: JsonObject, writer: protobuf.Writer): void;
}

type Special = 'time' | 'microTime' | 'quantity' | 'intOrString' | 'fieldsV1' | 'stringList' | 'json';

/** Messages whose JSON form is not an object of their fields. */
const SPECIAL: Record<string, Special> = {
  [`${META}.Time`]: 'time',
  [`${META}.MicroTime`]: 'microTime',
  [`${META}.FieldsV1`]: 'fieldsV1',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  'k8s.io.api.authorization.v1.ExtraValue': 'stringList',
  'k8s.io.api.authentication.v1.ExtraValue': 'stringList',
  [`${APIEXTENSIONS}.JSON`]: 'json',
};

/** From this many fields on, a message's encoder reads an object by its keys (see messageSource). */
const SPARSE_FIELDS = 32;

type Scalar = 'string' | 'bool' | 'int32' | 'int64' | 'double' | 'bytes';
const SCALARS: readonly string[] = ['string', 'bool', 'int32', 'int64', 'double', 'bytes'];
const WIRE_TYPE: Record<Scalar, number> = { string: 2, bool: 0, int32: 0, int64: 0, double: 1, bytes: 2 };
// bytes are base64 text in the JSON form, as Go's encoding/json writes a []byte.
const ZERO: Record<Scalar, string> = { string: "''", bool: 'false', int32: '0', int64: '0', double: '0', bytes: "''" };

// ---- helpers the generated code calls ----

function malformed(message: string): ProtobufError {
  return new ProtobufError('Malformed', message);
}

function overrun(): ProtobufError {
  return malformed('a field runs past the end of its message');
}

/** The end of a length-delimited value of `length` bytes starting at the reader's position. */
function bound(r: protobuf.Reader, length: number): number {
  const end = r.pos + length;
  if (end > r.len) throw overrun();
  return end;
}

/** A varint int64 as a number (exact up to 2^53), without protobufjs' Long objects. */
function int64(r: protobuf.Reader): number {
  const buf = r.buf;
  const len = r.len;
  let pos = r.pos;
  let lo = 0;
  let b: number;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= len) throw overrun();
    b = buf[pos++]!;
    lo |= (b & 127) << shift;
    if (b < 128) {
      r.pos = pos;
      return lo >>> 0;
    }
  }
  if (pos >= len) throw overrun();
  b = buf[pos++]!;
  lo |= (b & 15) << 28;
  let hi = (b & 127) >>> 4;
  if (b < 128) {
    r.pos = pos;
    return hi * 4294967296 + (lo >>> 0);
  }
  for (let shift = 3; shift < 32; shift += 7) {
    if (pos >= len) throw overrun();
    b = buf[pos++]!;
    hi |= (b & 127) << shift;
    if (b < 128) {
      r.pos = pos;
      return (hi | 0) * 4294967296 + (lo >>> 0);
    }
  }
  throw malformed('invalid varint');
}

interface Utf8Buffer {
  utf8Slice(start: number, end: number): string;
}

// Short ASCII strings recur across the objects of a list (kinds, groups, managers, label keys): the
// last one seen in each of these slots is reused instead of decoding (and allocating) it again.
const STRING_SLOTS = 4096;
const MAX_CACHED = 40;
const recent: (string | undefined)[] = new Array<string | undefined>(STRING_SLOTS).fill(undefined);

/**
 * A length-delimited UTF-8 string. The reader's buffer is a node Buffer (see readerOf), whose
 * utf8Slice is the fastest way from bytes to a string here.
 */
function str(r: protobuf.Reader): string {
  const length = r.uint32();
  const start = r.pos;
  const end = start + length;
  if (end > r.len) throw overrun();
  r.pos = end;
  const buf = r.buf;
  if (length === 0 || length > MAX_CACHED) return (buf as unknown as Utf8Buffer).utf8Slice(start, end);
  const slot = (length * 31 * 31 * 31 + buf[start]! * 31 * 31 + buf[start + (length >> 1)]! * 31 + buf[end - 1]!) & (STRING_SLOTS - 1);
  const cached = recent[slot];
  if (cached !== undefined && cached.length === length) {
    let i = 0;
    while (i < length && cached.charCodeAt(i) === buf[start + i]) i++;
    if (i === length) return cached;
  }
  const text = (buf as unknown as Utf8Buffer).utf8Slice(start, end);
  // As many characters as bytes: ASCII, which the comparison above can check byte for byte.
  if (text.length === length) recent[slot] = text;
  return text;
}

function skip(r: protobuf.Reader, tag: number): void {
  r.skipType(tag & 7, 0, tag >>> 3);
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
}

function invalid(field: string, expected: string, value: unknown): ProtobufError {
  return new ProtobufError('InvalidValue', `${field}: expected ${expected}, got ${describe(value)}`);
}

/** Prefixes the field path of an InvalidValue error raised inside a nested value. */
function within(err: unknown, field: string): unknown {
  if (!(err instanceof ProtobufError) || err.reason !== 'InvalidValue') return err;
  return new ProtobufError('InvalidValue', `${field}${err.message.startsWith('[') ? '' : '.'}${err.message}`);
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets a key, even "__proto__", as an own enumerable property (as JSON.parse does). */
function setKey(map: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
  else map[key] = value;
}

// The special types: reading stops at `end`; writing writes the fields (the caller wrote tag and forks).

function readTime(r: protobuf.Reader, end: number): string | undefined {
  // An empty message is the zero time, which the JSON form omits. Upstream reads seconds only.
  if (r.pos === end) return undefined;
  let seconds = 0;
  while (r.pos < end) {
    const t = r.tag();
    if (t === 8) seconds = int64(r);
    else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
  return formatTime(seconds);
}

/**
 * An int64 varint. A value in uint32's range has the same varint as a uint32, written without the
 * LongBits object protobufjs makes for every int64 (two per Time: they were a tenth of what a large
 * Protobuf list allocated).
 */
function writeInt64(w: protobuf.Writer, n: number): void {
  if (n >= 0 && n <= 0xffffffff) w.uint32(n);
  else w.int64(n);
}

/**
 * A map's keys in the order upstream writes them (sorted). Maps are mostly small and often already
 * in order: they are sorted in place by insertion, where Array.prototype.sort allocates its working
 * state on every call (most of what a large Protobuf list allocated).
 */
function sortedKeys(map: JsonObject): string[] {
  const ks = Object.keys(map);
  if (ks.length > 32) return ks.sort();
  for (let i = 1; i < ks.length; i++) {
    const k = ks[i]!;
    let j = i - 1;
    for (; j >= 0 && ks[j]! > k; j--) ks[j + 1] = ks[j]!;
    ks[j + 1] = k;
  }
  return ks;
}

function writeTime(v: unknown, w: protobuf.Writer, field: string): void {
  if (typeof v !== 'string') throw invalid(field, 'an RFC 3339 time', v);
  // Upstream writes whole seconds, and nanos 0.
  w.uint32(8);
  writeInt64(w, parseTime(v, field).seconds);
  w.uint32(16).int32(0);
}

function readMicroTime(r: protobuf.Reader, end: number): string | undefined {
  if (r.pos === end) return undefined;
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const t = r.tag();
    if (t === 8) seconds = int64(r);
    else if (t === 16) nanos = r.int32();
    else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
  return formatMicroTime(seconds, nanos);
}

function writeMicroTime(v: unknown, w: protobuf.Writer, field: string): void {
  if (typeof v !== 'string') throw invalid(field, 'an RFC 3339 time', v);
  const { seconds, nanos } = parseTime(v, field);
  w.uint32(8);
  writeInt64(w, seconds);
  w.uint32(16).int32(nanos);
}

function readQuantity(r: protobuf.Reader, end: number): string {
  let text = '';
  while (r.pos < end) {
    const t = r.tag();
    if (t === 10) text = str(r);
    else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
  // A zero Quantity's text is "0".
  return text || '0';
}

function writeQuantity(v: unknown, w: protobuf.Writer, field: string): void {
  if (typeof v === 'string') w.uint32(10).string(v);
  else if (typeof v === 'number' && Number.isFinite(v)) w.uint32(10).string(String(v));
  else throw invalid(field, 'a quantity string', v);
}

// IntOrString: type 1 (0 an int, 1 a string), intVal 2, strVal 3; its JSON form is the number or the
// string. Go writes all three fields whatever the type.
function readIntOrString(r: protobuf.Reader, end: number): number | string {
  let type = 0;
  let intVal = 0;
  let strVal = '';
  while (r.pos < end) {
    const t = r.tag();
    if (t === 8) type = Number(int64(r));
    else if (t === 16) intVal = r.int32();
    else if (t === 26) strVal = str(r);
    else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
  return type === 1 ? strVal : intVal;
}

function writeIntOrString(v: unknown, w: protobuf.Writer, field: string): void {
  if (typeof v === 'string') w.uint32(8).int32(1).uint32(16).int32(0).uint32(26).string(v);
  else if (typeof v === 'number' && Number.isInteger(v)) w.uint32(8).int32(0).uint32(16).int32(v).uint32(26).string('');
  else throw invalid(field, 'an integer or a string', v);
}

// FieldsV1's Raw is the set's JSON text. Objects of one kind written by one manager often carry the
// same set: the last few are kept, by their bytes, with their parsed tree, and a copy of the tree
// (every value in a field set is an object) is cheaper than decoding and parsing the text again.
const FIELD_SETS = 16;
const fieldSets: { bytes: Buffer; tree: JsonObject }[] = [];

function copyTree(tree: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const key of Object.keys(tree)) setKey(copy, key, copyTree(tree[key] as JsonObject));
  return copy;
}

const isTree = (value: unknown): value is JsonObject =>
  isObject(value) && Object.keys(value).every((key) => isTree(value[key]));

/**
 * Where the bytes of field 1 lie in the message ending at `end` (FieldsV1's and JSON's raw, their
 * only field), leaving the reader at `end`. One span, refilled by each call, that the caller reads
 * at once: no object per call on this path, which every managedFields entry takes.
 */
const raw = { start: 0, length: 0 };
function findRaw(r: protobuf.Reader, end: number): void {
  raw.start = r.pos;
  raw.length = 0;
  while (r.pos < end) {
    const t = r.tag();
    if (t === 10) {
      raw.length = r.uint32();
      raw.start = r.pos;
      r.pos = bound(r, raw.length);
    } else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
}

function readFieldsV1(r: protobuf.Reader, end: number): unknown {
  findRaw(r, end);
  const { start, length } = raw;
  if (length === 0) return undefined;
  const buf = r.buf as Buffer;
  for (const known of fieldSets) {
    if (known.bytes.length === length && buf.compare(known.bytes, 0, length, start, start + length) === 0) return copyTree(known.tree);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse((buf as unknown as Utf8Buffer).utf8Slice(start, start + length));
  } catch {
    throw malformed('fieldsV1: Raw is not JSON');
  }
  if (isTree(parsed)) {
    if (fieldSets.length >= FIELD_SETS) fieldSets.pop();
    fieldSets.unshift({ bytes: Buffer.from(buf.subarray(start, start + length)), tree: copyTree(parsed) });
  }
  return parsed;
}

function writeFieldsV1(v: unknown, w: protobuf.Writer, field: string): void {
  if (!isObject(v)) throw invalid(field, 'object', v);
  w.uint32(10).string(JSON.stringify(v));
}

// ExtraValue: a list of strings, whose JSON form is the bare list ([] when empty).
function readStringList(r: protobuf.Reader, end: number): string[] {
  const items: string[] = [];
  while (r.pos < end) {
    const t = r.tag();
    if (t === 10) items.push(str(r));
    else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
  return items;
}

function writeStringList(v: unknown, w: protobuf.Writer, field: string): void {
  if (!Array.isArray(v)) throw invalid(field, 'array of strings', v);
  for (let i = 0; i < v.length; i++) {
    const s: unknown = v[i];
    if (typeof s !== 'string') throw invalid(`${field}[${i}]`, 'string', s);
    w.uint32(10).string(s);
  }
}

// apiextensions' JSON: raw bytes holding the JSON text of any value (a default, an example, an
// enum member). Go writes no raw for a nil value, whose JSON is null (an enum's `null` member).
function readJson(r: protobuf.Reader, end: number): unknown {
  findRaw(r, end);
  const { start, length } = raw;
  if (length === 0) return null;
  try {
    return JSON.parse((r.buf as unknown as Utf8Buffer).utf8Slice(start, start + length)) as unknown;
  } catch {
    throw malformed('JSON: raw is not JSON text');
  }
}

function writeJson(v: unknown, w: protobuf.Writer, field: string): void {
  if (v === null) return;
  // Compact text, as Go's encoding/json compacts what a value marshals to.
  const text = JSON.stringify(v) as string | undefined;
  if (text === undefined) throw invalid(field, 'a JSON value', v);
  w.uint32(10).string(text);
}

/** A length-delimited bytes field as base64 text (standard alphabet, padded), as Go writes []byte. */
function readBase64(r: protobuf.Reader): string {
  const length = r.uint32();
  const start = r.pos;
  r.pos = bound(r, length);
  return (r.buf as Buffer).toString('base64', start, start + length);
}

// Go's base64.StdEncoding: padded, the standard alphabet; it skips line breaks.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function base64Bytes(v: unknown, field: string): Buffer {
  if (typeof v !== 'string') throw invalid(field, 'a base64 string', v);
  const text = v.includes('\n') || v.includes('\r') ? v.replace(/[\r\n]/g, '') : v;
  if (!BASE64.test(text)) throw new ProtobufError('InvalidValue', `${field}: not base64 (standard alphabet, padded)`);
  return Buffer.from(text, 'base64');
}

const helpers = {
  bound,
  str,
  int64,
  skip,
  overrun,
  invalid,
  within,
  isObject,
  setKey,
  isArray: Array.isArray,
  isInteger: Number.isInteger,
  sortedKeys,
  writeInt64,
  readTime,
  writeTime,
  readMicroTime,
  writeMicroTime,
  readQuantity,
  writeQuantity,
  readIntOrString,
  writeIntOrString,
  readFieldsV1,
  writeFieldsV1,
  readStringList,
  writeStringList,
  readJson,
  writeJson,
  readBase64,
  base64Bytes,
  isFinite: Number.isFinite,
};

const SPECIAL_FUNCTIONS: Record<Special, { read: string; write: string }> = {
  time: { read: 'readTime', write: 'writeTime' },
  microTime: { read: 'readMicroTime', write: 'writeMicroTime' },
  quantity: { read: 'readQuantity', write: 'writeQuantity' },
  intOrString: { read: 'readIntOrString', write: 'writeIntOrString' },
  fieldsV1: { read: 'readFieldsV1', write: 'writeFieldsV1' },
  stringList: { read: 'readStringList', write: 'writeStringList' },
  json: { read: 'readJson', write: 'writeJson' },
};

// ---- code generation ----

const q = (s: string): string => JSON.stringify(s);

/**
 * A value's type: a scalar, a special type, a message, or a union (a message whose JSON form is one
 * of several shapes, unions.ts). Messages and unions by their index among the compiled ones: each
 * gets its own d<i> and e<i>.
 */
type ValueType = { scalar: Scalar } | { special: Special } | { message: number } | { union: number };

interface Compilation {
  types: protobuf.Type[];
  index: Map<protobuf.Type, number>;
}

/** The index of a message among the compiled ones, appending it when first met. */
function indexOf(c: Compilation, type: protobuf.Type): number {
  let i = c.index.get(type);
  if (i === undefined) {
    i = c.types.length;
    c.types.push(type);
    c.index.set(type, i);
  }
  return i;
}

function valueType(c: Compilation, owner: string, field: protobuf.Field): ValueType {
  const resolved = field.resolvedType;
  if (!resolved) {
    if (!SCALARS.includes(field.type)) throw new Error(`${owner}.${field.name}: unsupported type ${field.type}`);
    return { scalar: field.type as Scalar };
  }
  if (!(resolved instanceof protobuf.Type)) throw new Error(`${owner}.${field.name}: enums are not supported`);
  const special = SPECIAL[fullName(resolved)];
  if (special) return { special };
  const i = indexOf(c, resolved);
  return UNIONS[fullName(resolved)] ? { union: i } : { message: i };
}

const wireTypeOf = (v: ValueType): number => ('scalar' in v ? WIRE_TYPE[v.scalar] : 2);

/** The decoder of a special type, message or union. */
const decoderOf = (v: Exclude<ValueType, { scalar: Scalar }>): string =>
  'special' in v ? SPECIAL_FUNCTIONS[v.special].read : `d${'message' in v ? v.message : v.union}`;

/** An expression reading one value of this type at the reader's position. */
function readExpr(v: ValueType): string {
  if ('scalar' in v) {
    switch (v.scalar) {
      case 'string':
        return 'str(r)';
      case 'bool':
        return 'r.bool()';
      case 'int32':
        return 'r.int32()';
      case 'int64':
        return 'int64(r)';
      case 'double':
        return 'r.double()';
      case 'bytes':
        return 'readBase64(r)';
    }
  }
  return `${decoderOf(v)}(r, bound(r, r.uint32()))`;
}

/** An expression for the value of an empty message of this type (a map entry without its value). */
function emptyExpr(v: ValueType): string {
  if ('scalar' in v) return ZERO[v.scalar];
  return `${decoderOf(v)}(r, r.pos)`;
}

/**
 * Statements writing value `x` with the tag, naming it `field` in errors. `x` is known not to be
 * null, but for a union's map value: a union's null is its zero value (unions.ts).
 */
function writeStmts(v: ValueType, tag: number, x: string, field: string): string {
  if ('scalar' in v) {
    switch (v.scalar) {
      case 'string':
        return `if (typeof ${x} !== 'string') throw invalid(${field}, 'string', ${x}); w.uint32(${tag}).string(${x});`;
      case 'bool':
        return `if (typeof ${x} !== 'boolean') throw invalid(${field}, 'boolean', ${x}); w.uint32(${tag}).bool(${x});`;
      case 'int32':
        return `if ((${x} | 0) !== ${x}) throw invalid(${field}, 'int32', ${x}); w.uint32(${tag}).int32(${x});`;
      case 'int64':
        return `if (typeof ${x} !== 'number' || !isInteger(${x})) throw invalid(${field}, 'integer', ${x}); w.uint32(${tag}); writeInt64(w, ${x});`;
      case 'double':
        return `if (typeof ${x} !== 'number' || !isFinite(${x})) throw invalid(${field}, 'number', ${x}); w.uint32(${tag}).double(${x});`;
      case 'bytes':
        return `w.uint32(${tag}).bytes(base64Bytes(${x}, ${field}));`;
    }
  }
  if ('special' in v) return `w.uint32(${tag}).fork(); ${SPECIAL_FUNCTIONS[v.special].write}(${x}, w, ${field}); w.ldelim();`;
  // A union checks its value's shape itself, and names the field in its errors.
  if ('union' in v) return `w.uint32(${tag}).fork(); e${v.union}(${x}, w, ${field}); w.ldelim();`;
  return (
    `if (!isObject(${x})) throw invalid(${field}, 'object', ${x}); w.uint32(${tag}).fork(); ` +
    `try { e${v.message}(${x}, w); } catch (err) { throw within(err, ${field}); } w.ldelim();`
  );
}

/** The decode (d<i>) and encode (e<i>) functions of message i, and of its map entries. */
function messageSource(c: Compilation, i: number): string {
  const type = c.types[i]!;
  const name = fullName(type);
  const union = UNIONS[name];
  if (union) {
    const schema = type.fields['schema'];
    const value = schema && valueType(c, name, schema);
    if (!value || !('message' in value)) throw new Error(`${name}: a union's schema must be a message field`);
    return unionSource(union, type, i, value.message);
  }
  const fields = type.fieldsArray;
  const out: string[] = [];
  const cases: string[] = [];
  const emits: string[] = [];

  fields.forEach((field, k) => {
    const json = jsonName(name, field.name);
    const prop = `o[${q(json)}]`;
    const local = `f${k}`;
    const emit = emitOf(name, field.name);
    if (field.map) {
      const mapField = field as unknown as protobuf.MapField;
      if (mapField.keyType !== 'string') throw new Error(`${name}.${field.name}: map keys must be strings`);
      const value = valueType(c, name, field);
      const entry = `m${i}_${k}`;
      const fallback = emptyExpr(value);
      out.push(
        `function ${entry}(r, end, map) {
  let k = '', v;
  while (r.pos < end) {
    const t = r.tag();
    if (t === 10) k = str(r);
    else if (t === ${(2 << 3) | wireTypeOf(value)}) v = ${readExpr(value)};
    else skip(r, t);
  }
  if (r.pos !== end) throw overrun();
  if (v === undefined) v = ${fallback};
  if (map === undefined) map = {};
  if (k === '__proto__') setKey(map, k, v);
  else map[k] = v;
  return map;
}`,
      );
      cases.push(`case ${(field.id << 3) | 2}: ${local} = ${entry}(r, bound(r, r.uint32()), ${local}); break;`);
      // Every map of these kinds is omitempty upstream; a decoded map has at least one key.
      emits.push(`if (${local} !== undefined) ${prop} = ${local};`);
      return;
    }
    const value = valueType(c, name, field);
    const tag = (field.id << 3) | wireTypeOf(value);
    if (isInline(name, field.name)) {
      if (!('message' in value) || field.repeated) throw new Error(`${name}.${field.name}: only a single message may be inline`);
      // Its fields join the parent's object where it stands (Go's embedded struct).
      cases.push(`case ${tag}: ${local} = ${readExpr(value)}; break;`);
      emits.push(`if (${local} !== undefined) Object.assign(o, ${local});`);
      return;
    }
    if (field.repeated) {
      if (wireTypeOf(value) !== 2) throw new Error(`${name}.${field.name}: repeated numbers (packed) are not supported`);
      cases.push(`case ${tag}: (${local} === undefined ? (${local} = []) : ${local}).push(${readExpr(value)}); break;`);
      emits.push(emit === 'always' ? `${prop} = ${local} === undefined ? [] : ${local};` : `if (${local} !== undefined) ${prop} = ${local};`);
      return;
    }
    cases.push(`case ${tag}: ${local} = ${readExpr(value)}; break;`);
    if (!('scalar' in value) || emit === 'presence') {
      emits.push(`if (${local} !== undefined) ${prop} = ${local};`);
    } else if (emit === 'always') {
      emits.push(`${prop} = ${local} === undefined ? ${ZERO[value.scalar]} : ${local};`);
    } else {
      const nonZero: Record<Scalar, string> = {
        string: `${local} !== undefined && ${local} !== ''`,
        bool: `${local} === true`,
        int32: `${local} !== undefined && ${local} !== 0`,
        int64: `${local} !== undefined && ${local} !== 0`,
        double: `${local} !== undefined && ${local} !== 0`,
        bytes: `${local} !== undefined && ${local} !== ''`,
      };
      emits.push(`if (${nonZero[value.scalar]}) ${prop} = ${local};`);
    }
  });

  const locals = fields.length ? `let ${fields.map((_, k) => `f${k}`).join(', ')};` : '';
  out.push(`// ${name}
function d${i}(r, end) {
  ${locals}
  while (r.pos < end) {
    const t = r.tag();
    switch (t) {
      ${cases.join('\n      ')}
      default: skip(r, t);
    }
  }
  if (r.pos !== end) throw overrun();
  const o = {};
  ${emits.join('\n  ')}
  return o;
}`);

  // A message of many fields whose objects set few of them (JSONSchemaProps: 44): one pass over the
  // object's keys finds them, where a lookup per field would miss most of the time, each miss slow
  // at a site that sees objects of every shape.
  const sparse = fields.length >= SPARSE_FIELDS;
  // Written in field-number order, as upstream's generated code writes; map keys sorted, as upstream.
  const writes = [...fields]
    .sort((a, b) => a.id - b.id)
    .map((field) => {
      const json = jsonName(name, field.name);
      const value = valueType(c, name, field);
      // An inline message is written from the parent's own object, always (Go writes an embedded struct).
      if (isInline(name, field.name) && 'message' in value) return `w.uint32(${(field.id << 3) | 2}).fork(); e${value.message}(o, w); w.ldelim();`;
      const read = sparse ? `v = x${fields.indexOf(field)};` : `v = o[${q(json)}];`;
      if (field.map) {
        const entryValue = writeStmts(value, (2 << 3) | wireTypeOf(value), 'x', `${q(json + '[')} + k + ']'`);
        // A union's null is its zero value, which Go writes as an entry with an empty value.
        const skipNull = 'union' in value ? '' : 'if (x == null) continue;';
        return `${read}
  if (v != null) {
    if (!isObject(v)) throw invalid(${q(json)}, 'object', v);
    const ks = sortedKeys(v);
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i], x = v[k];
      ${skipNull}
      w.uint32(${(field.id << 3) | 2}).fork().uint32(10).string(k);
      ${entryValue}
      w.ldelim();
    }
  }`;
      }
      const tag = (field.id << 3) | wireTypeOf(value);
      if (field.repeated) {
        return `${read}
  if (v != null) {
    if (!isArray(v)) throw invalid(${q(json)}, 'array', v);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      ${writeStmts(value, tag, 'x', `${q(json + '[')} + i + ']'`)}
    }
  }`;
      }
      return `${read}
  if (v != null) { ${writeStmts(value, tag, 'v', q(json))} }`;
    });
  const gather = sparse
    ? `let ${fields.map((_, k) => `x${k}`).join(', ')};
  for (const key in o) {
    switch (key) {
      ${fields.map((field, k) => `case ${q(jsonName(name, field.name))}: x${k} = o[key]; break;`).join('\n      ')}
    }
  }`
    : '';
  out.push(`function e${i}(o, w) {
  let v;
  ${gather}
  ${writes.join('\n  ')}
}`);
  return out.join('\n');
}

/**
 * Compiles the converters of these messages and of every message they contain, as one generated
 * module (so that nested messages call each other directly). Keyed by full name.
 */
export function compile(roots: readonly protobuf.Type[]): Map<string, MessageCodec> {
  const c: Compilation = { types: [...roots], index: new Map(roots.map((t, i) => [t, i])) };
  const sources: string[] = [];
  // types grows while messages are compiled: nested messages are appended as they are met.
  for (let i = 0; i < c.types.length; i++) sources.push(messageSource(c, i));
  for (const type of c.types) markCompiled(fullName(type));
  const body = `"use strict";
const { ${Object.keys(helpers).join(', ')} } = h;
${sources.join('\n\n')}
return [${c.types.map((_, i) => `[d${i}, e${i}]`).join(', ')}];`;
  type Generated = [MessageCodec['decode'], MessageCodec['encode']][];
  // The source is built from our own .proto files only; no request data reaches it.
  const generated = new Function('h', body)(helpers) as Generated;
  return new Map(
    c.types.map((type, i) => {
      const [decode, encode] = generated[i]!;
      return [fullName(type), { name: fullName(type), decode, encode }];
    }),
  );
}
