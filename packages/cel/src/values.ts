// The values expressions compute with. Integers are exact 64-bit (bigint, with uint boxed so the two
// stay apart), doubles are numbers, and lists and maps are interfaces, so that a custom resource's
// data is read in place (schema-values.ts) rather than copied into another form per evaluation.
import { poll } from './interrupt.js';

/** An unsigned 64-bit integer. */
export class UInt {
  constructor(readonly value: bigint) {}
}

/**
 * A point in time, in nanoseconds since the Unix epoch (UTC), from year 1 to year 9999, with the
 * offset from UTC it was written in (as Go's time.Time keeps its zone): only string() shows it.
 */
export class Timestamp {
  constructor(
    readonly nanos: bigint,
    /** Seconds east of UTC. */
    readonly offset = 0,
  ) {}
}

/** A signed span of time in nanoseconds, within int64 as Go's time.Duration. */
export class Duration {
  constructor(readonly nanos: bigint) {}
}

/** A type as a value: what `type(x)` returns and `int`, `string`... name. */
export class TypeValue {
  constructor(readonly name: string) {}
}

/**
 * An error as a value: evaluation carries it up until something absorbs it (`false && error` is
 * false) or it reaches the top, where it fails the expression with its message.
 */
export class ErrorValue {
  constructor(readonly message: string) {}
}

/** A library's own value (a URL, an authorizer...): the type name it answers to `type()`. */
export abstract class OpaqueValue {
  abstract readonly typeName: string;
  /** Whether it equals another value of the same type. */
  abstract equals(other: OpaqueValue): boolean;
}

export abstract class ListValue {
  abstract size(): number;
  /** The element at `index` (within bounds). */
  abstract get(index: number): Value;
  abstract values(): Iterable<Value>;
  /** `this == other`, by this list's semantics (ordered, or as a set, or as a map by its keys). */
  equals(other: ListValue): boolean | ErrorValue {
    if (this.size() !== other.size()) return false;
    for (let i = 0; i < this.size(); i++) {
      // A comparison costs by the lists' lengths, whatever their elements hold: the clock bounds the rest.
      poll();
      const eq = valuesEqual(this.get(i), other.get(i));
      if (eq !== true) return eq;
    }
    return true;
  }
  /** `this + other`, by this list's semantics. */
  concat(other: ListValue): ListValue {
    return new ArrayList([...this.values(), ...other.values()]);
  }
  contains(value: Value): boolean | ErrorValue {
    let error: ErrorValue | undefined;
    for (const element of this.values()) {
      poll();
      const eq = valuesEqual(element, value);
      if (eq === true) return true;
      if (eq instanceof ErrorValue) error ??= eq;
    }
    return error ?? false;
  }
}

/** A list of values computed by the expression (literals, map(), filter(), split()...). */
export class ArrayList extends ListValue {
  constructor(readonly items: readonly Value[]) {
    super();
  }
  size(): number {
    return this.items.length;
  }
  get(index: number): Value {
    return this.items[index]!;
  }
  values(): Iterable<Value> {
    return this.items;
  }
}

export abstract class MapValue {
  abstract size(): number;
  /** The value at `key`, or undefined when absent. */
  abstract get(key: Value): Value | undefined;
  /** The keys, as the expression sees them (an object's property names escaped). */
  abstract keys(): Iterable<Value>;
  equals(other: MapValue): boolean | ErrorValue {
    if (this.size() !== other.size()) return false;
    for (const key of this.keys()) {
      poll();
      const theirs = other.get(key);
      if (theirs === undefined) return false;
      const eq = valuesEqual(this.get(key)!, theirs);
      if (eq !== true) return eq;
    }
    return true;
  }
}

/**
 * A map built by the expression (a literal, or a library's result), as cel-go 0.16 keeps one: keys
 * by their exact value and type (1 and 1u are two keys; a repeated key keeps its last value), and
 * a numeric key found across the integer types and from an integral double (`m[1.0]` finds 1).
 */
export class LiteralMap extends MapValue {
  private readonly entries = new Map<unknown, [Value, Value]>();
  constructor(entries: Iterable<readonly [Value, Value]>) {
    super();
    for (const [key, value] of entries) this.entries.set(exactKey(key), [key, value]);
  }
  size(): number {
    return this.entries.size;
  }
  get(key: Value): Value | undefined {
    const exact = this.entries.get(exactKey(key));
    if (exact) return exact[1];
    for (const other of numericKeys(key)) {
      const found = this.entries.get(other);
      if (found) return found[1];
    }
    return undefined;
  }
  *keys(): Iterable<Value> {
    for (const [key] of this.entries.values()) yield key;
  }
}

const MAX_INT64 = (1n << 63n) - 1n;

/** A key's identity: its type and value (a NaN is a key nothing finds, as in Go). */
function exactKey(key: Value): unknown {
  if (typeof key === 'bigint') return `i${key}`;
  if (key instanceof UInt) return `u${key.value}`;
  if (typeof key === 'number') return Number.isNaN(key) ? Symbol('NaN') : `d${key}`;
  if (typeof key === 'string') return `s${key}`;
  if (typeof key === 'boolean') return `b${key}`;
  if (key === null) return 'null';
  return key;
}

/** The other keys a numeric key finds, in cel-go's order. */
function numericKeys(key: Value): string[] {
  if (typeof key === 'number') {
    if (!Number.isInteger(key)) return [];
    const n = BigInt(key);
    const out: string[] = [];
    if (n >= -(1n << 63n) && n <= MAX_INT64 && key < 9223372036854775808.0) out.push(`i${n}`);
    if (n >= 0n && key < 18446744073709551616.0) out.push(`u${n}`);
    return out;
  }
  if (typeof key === 'bigint') return key >= 0n ? [`u${key}`] : [];
  if (key instanceof UInt) return key.value <= MAX_INT64 ? [`i${key.value}`] : [];
  return [];
}

export type Value =
  | bigint
  | number
  | string
  | boolean
  | null
  | Uint8Array
  | UInt
  | Timestamp
  | Duration
  | TypeValue
  | ListValue
  | MapValue
  | OpaqueValue
  | ErrorValue;

/** The runtime type name of a value: what `type(v)` names. */
export function typeName(v: Value): string {
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
  }
  if (v === null) return 'null_type';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof UInt) return 'uint';
  if (v instanceof Timestamp) return 'google.protobuf.Timestamp';
  if (v instanceof Duration) return 'google.protobuf.Duration';
  if (v instanceof TypeValue) return 'type';
  if (v instanceof ListValue) return 'list';
  if (v instanceof MapValue) return 'map';
  if (v instanceof OpaqueValue) return v.typeName;
  return 'error';
}

const MAX_INT64_AS_DOUBLE = 9223372036854775808.0;
const MIN_INT64_AS_DOUBLE = -9223372036854775808.0;
const MAX_UINT64_AS_DOUBLE = 18446744073709551616.0;

/**
 * -1, 0, 1 of two numbers of any numeric types; undefined when unordered (NaN). As cel-go's
 * Compare: integers exactly, an integer against a double through the double unless the double is
 * outside the integer's range (so 9223372036854775807 equals 9223372036854775808.0, as in Go).
 */
export function compareNumbers(a: Value, b: Value): number | undefined {
  if (typeof a === 'number' && Number.isNaN(a)) return undefined;
  if (typeof b === 'number' && Number.isNaN(b)) return undefined;
  if (typeof a === 'number') {
    if (typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
    const isUint = b instanceof UInt;
    const int = isUint ? b.value : (b as bigint);
    if (a < (isUint ? 0 : MIN_INT64_AS_DOUBLE)) return -1;
    if (a > (isUint ? MAX_UINT64_AS_DOUBLE : MAX_INT64_AS_DOUBLE)) return 1;
    const d = Number(int);
    return a < d ? -1 : a > d ? 1 : 0;
  }
  if (typeof b === 'number') {
    const c = compareNumbers(b, a);
    return c === undefined ? undefined : -c;
  }
  const x = typeof a === 'bigint' ? a : (a as UInt).value;
  const y = typeof b === 'bigint' ? b : (b as UInt).value;
  return x < y ? -1 : x > y ? 1 : 0;
}

export const isNumeric = (v: Value): boolean => typeof v === 'bigint' || typeof v === 'number' || v instanceof UInt;

/** Strings compare by code point, as Go compares their UTF-8 bytes (not by UTF-16 unit). */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (an astral code point) sorts above every BMP code point.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * CEL's runtime equality: numbers across their types by value, lists and maps by their own
 * semantics, values of different types unequal (heterogeneous equality), errors carried.
 */
export function valuesEqual(a: Value, b: Value): boolean | ErrorValue {
  if (a instanceof ErrorValue) return a;
  if (b instanceof ErrorValue) return b;
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  if (isNumeric(a)) return isNumeric(b) && compareNumbers(a, b) === 0;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareBytes(a, b) === 0;
  if (a instanceof Timestamp) return b instanceof Timestamp && a.nanos === b.nanos;
  if (a instanceof Duration) return b instanceof Duration && a.nanos === b.nanos;
  if (a instanceof TypeValue) return b instanceof TypeValue && a.name === b.name;
  if (a instanceof ListValue) return b instanceof ListValue ? a.equals(b) : false;
  if (a instanceof MapValue) return b instanceof MapValue ? a.equals(b) : false;
  if (a instanceof OpaqueValue) return b instanceof OpaqueValue && a.typeName === b.typeName && a.equals(b);
  return false;
}

/** The last long string measured, and its code points: loops measure the same string again and again. */
let measured: { readonly s: string; readonly n: number } | undefined;

/** The number of code points of a string: CEL's size(). */
export function codePointLength(s: string): number {
  if (s.length > 256 && measured?.s === s) return measured.n;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  if (s.length > 256) measured = { s, n };
  return n;
}

/** The size that costs are measured in (cel-go's Sizer): length of strings, bytes, lists and maps; 1 otherwise. */
export function actualSize(v: Value): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof ListValue || v instanceof MapValue) return v.size();
  return 1;
}
