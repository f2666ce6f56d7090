// The values expressions compute with. Integers are exact 64-bit (bigint, with uint boxed so the two
// stay apart), doubles are numbers, and lists and maps are interfaces, so that a custom resource's
// data is read in place (schema-values.ts) rather than copied into another form per evaluation.

/** An unsigned 64-bit integer. */
export class UInt {
  constructor(readonly value: bigint) {}
}

/** A point in time, in nanoseconds since the Unix epoch (UTC), from year 1 to year 9999. */
export class Timestamp {
  constructor(readonly nanos: bigint) {}
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
      const theirs = other.get(key);
      if (theirs === undefined) return false;
      const eq = valuesEqual(this.get(key)!, theirs);
      if (eq !== true) return eq;
    }
    return true;
  }
}

/** A map built by the expression (a literal, or a library's result): keys are int, uint, bool or string. */
export class LiteralMap extends MapValue {
  private readonly entries = new Map<string, [Value, Value]>();
  constructor(entries: Iterable<readonly [Value, Value]>) {
    super();
    for (const [key, value] of entries) this.entries.set(mapKey(key), [key, value]);
  }
  size(): number {
    return this.entries.size;
  }
  get(key: Value): Value | undefined {
    return this.entries.get(mapKey(key))?.[1];
  }
  *keys(): Iterable<Value> {
    for (const [key] of this.entries.values()) yield key;
  }
}

/** The identity of a map key: numeric keys of either integer type are one key (1 and 1u), as in CEL. */
function mapKey(key: Value): string {
  if (typeof key === 'bigint') return `n${key}`;
  if (key instanceof UInt) return `n${key.value}`;
  if (typeof key === 'number') return Number.isInteger(key) ? `n${BigInt(key)}` : `d${key}`;
  if (typeof key === 'string') return `s${key}`;
  if (typeof key === 'boolean') return `b${key}`;
  return `?${String(key)}`;
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

/** A number of either integer type or a double, as a comparable pair (exact for integers). */
function numeric(v: Value): { int?: bigint; double?: number } | undefined {
  if (typeof v === 'bigint') return { int: v };
  if (v instanceof UInt) return { int: v.value };
  if (typeof v === 'number') return { double: v };
  return undefined;
}

/** -1, 0, 1 of two numbers of any numeric type; undefined when unordered (NaN). */
export function compareNumbers(a: Value, b: Value): number | undefined {
  const x = numeric(a)!;
  const y = numeric(b)!;
  if (x.int !== undefined && y.int !== undefined) return x.int < y.int ? -1 : x.int > y.int ? 1 : 0;
  if (x.double !== undefined && y.double !== undefined) {
    if (Number.isNaN(x.double) || Number.isNaN(y.double)) return undefined;
    return x.double < y.double ? -1 : x.double > y.double ? 1 : 0;
  }
  // An integer against a double: exact, without rounding the integer to a double.
  const [int, double, flip] = x.int !== undefined ? [x.int, y.double!, 1] : [y.int!, x.double!, -1];
  if (Number.isNaN(double)) return undefined;
  if (double === Infinity) return -flip;
  if (double === -Infinity) return flip;
  const floor = BigInt(Math.floor(double));
  if (int < floor) return -flip;
  if (int > floor) return flip;
  return double > Math.floor(double) ? -flip : 0;
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

/** The number of code points of a string: CEL's size(). */
export function codePointLength(s: string): number {
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
  return n;
}

/** The size that costs are measured in (cel-go's Sizer): length of strings, bytes, lists and maps; 1 otherwise. */
export function actualSize(v: Value): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof ListValue || v instanceof MapValue) return v.size();
  return 1;
}
