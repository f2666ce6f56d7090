// A custom resource's JSON data as expression values, read in place through its schema (upstream's
// UnstructuredToVal): integers exact, formatted strings as bytes, timestamps and durations, lists
// with their set or map semantics, objects whose only visible fields are those the schema declares
// (by their escaped names). Nested values are converted when first read, then kept.
import { escapeName, unescapeName } from './escaping.js';
import { parseDate, parseGoDuration, parseZonedRFC3339 } from './functions/time-values.js';
import { additionalPropertiesOf, itemsOf, withTypeAndObjectMeta, type SchemaNode } from './schema-types.js';
import { poll } from './interrupt.js';
import { Duration, ErrorValue, ListValue, MapValue, OpaqueValue, Timestamp, UInt, valuesEqual, type Value } from './values.js';

type Raw = unknown;
type RawObject = Record<string, Raw>;

const isObject = (v: Raw): v is RawObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Data under x-kubernetes-preserve-unknown-fields with no type: carried, compared, never read into. */
class UnknownPreserved extends OpaqueValue {
  readonly typeName = 'unknown';
  constructor(readonly raw: Raw) {
    super();
  }
  equals(other: OpaqueValue): boolean {
    return other instanceof UnknownPreserved && JSON.stringify(other.raw) === JSON.stringify(this.raw);
  }
}

/** strfmt's durations: Go's syntax, plus days and weeks. */
function parseSchemaDuration(text: string): bigint | undefined {
  const go = parseGoDuration(text);
  if (go !== undefined) return go;
  const m = /^(-?\d+)\s*(d|w)$/.exec(text.trim());
  if (!m) return undefined;
  return BigInt(m[1]!) * (m[2] === 'd' ? 86_400n : 604_800n) * 1_000_000_000n;
}

function base64ToBytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** The value of `raw` under `schema`. */
export function valueOf(raw: Raw, schema: SchemaNode): Value {
  if (raw === null || raw === undefined) {
    return schema.nullable ? null : new ErrorValue('invalid data, got null for schema with nullable=false');
  }
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof raw === 'string') return raw;
    if (typeof raw === 'number' && Number.isInteger(raw)) return BigInt(raw);
    return new ErrorValue('invalid data, expected XIntOrString value to be either a string or integer');
  }
  switch (schema.type) {
    case 'object': {
      if (!isObject(raw)) return new ErrorValue('invalid data, expected a map for the provided schema with type=object');
      if (schema['x-kubernetes-embedded-resource'] || schema.properties) {
        return new SchemaObject(raw, schema['x-kubernetes-embedded-resource'] ? withTypeAndObjectMeta(schema) : schema);
      }
      const additional = additionalPropertiesOf(schema);
      if (additional) return new SchemaMap(raw, additional);
      if (schema['x-kubernetes-preserve-unknown-fields']) return new SchemaObject(raw, schema);
      return new ErrorValue('invalid object type, expected either Properties or AdditionalProperties with Allows=true and non-empty Schema');
    }
    case 'array': {
      if (!Array.isArray(raw)) return new ErrorValue('invalid data, expected an array for the provided schema with type=array');
      const items = itemsOf(schema);
      if (!items) return new ErrorValue('invalid array type, expected Items with a non-empty Schema');
      const listType = schema['x-kubernetes-list-type'];
      if (listType === 'set') return new SchemaSetList(raw, items);
      if (listType === 'map') return new SchemaMapList(raw, items, schema['x-kubernetes-list-map-keys'] ?? []);
      return new SchemaList(raw, items);
    }
    case 'string': {
      if (typeof raw !== 'string') return new ErrorValue(`invalid data, expected string, got ${typeof raw}`);
      switch (schema.format) {
        case 'duration': {
          const nanos = parseSchemaDuration(raw);
          return nanos === undefined ? new ErrorValue(`Invalid duration ${raw}`) : new Duration(nanos);
        }
        case 'date': {
          const nanos = parseDate(raw);
          return nanos === undefined ? new ErrorValue(`Invalid date formatted string ${raw}`) : new Timestamp(nanos);
        }
        case 'date-time': {
          const parsed = parseZonedRFC3339(raw);
          return parsed === undefined ? new ErrorValue(`Invalid date-time formatted string ${raw}`) : new Timestamp(parsed.nanos, parsed.offset);
        }
        case 'byte': {
          const bytes = base64ToBytes(raw);
          return bytes ?? new ErrorValue(`Invalid byte formatted string ${raw}`);
        }
      }
      return raw;
    }
    case 'number':
      return typeof raw === 'number' ? raw : new ErrorValue(`invalid data, expected float, got ${typeof raw}`);
    case 'integer':
      return typeof raw === 'number' && Number.isInteger(raw) ? BigInt(raw) : new ErrorValue(`invalid data, expected int, got ${typeof raw}`);
    case 'boolean':
      return typeof raw === 'boolean' ? raw : new ErrorValue(`invalid data, expected bool, got ${typeof raw}`);
  }
  if (schema['x-kubernetes-preserve-unknown-fields']) return new UnknownPreserved(raw);
  return new ErrorValue(`invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got ${schema.type}`);
}

/** An object with properties: only declared fields are visible, under their escaped names; a null field is absent. */
export class SchemaObject extends MapValue {
  private readonly cache = new Map<string, Value>();
  constructor(
    readonly raw: RawObject,
    readonly schema: SchemaNode,
  ) {
    super();
  }
  size(): number {
    return Object.keys(this.raw).length;
  }
  get(key: Value): Value | undefined {
    if (typeof key !== 'string') return undefined;
    const property = unescapeName(key);
    return property === undefined ? undefined : this.field(property);
  }
  /** A declared field's value by its property name; undefined when absent or null. */
  field(property: string): Value | undefined {
    const cached = this.cache.get(property);
    if (cached !== undefined) return cached;
    if (!Object.hasOwn(this.raw, property)) return undefined;
    const raw = this.raw[property];
    const schema = this.schema.properties?.[property];
    if (raw === null || raw === undefined || !schema) return undefined;
    const value = valueOf(raw, schema);
    this.cache.set(property, value);
    return value;
  }
  /**
   * Upstream's unstructuredMap.Equal: as many fields; each declared field of this one equal to the
   * other's (a null one never is: a null field is absent); a field the schema does not declare
   * (kept by x-kubernetes-preserve-unknown-fields) compared as data with the other's, if it has it.
   */
  override equals(other: MapValue): boolean | ErrorValue {
    if (this.size() !== other.size()) return false;
    for (const [property, raw] of Object.entries(this.raw)) {
      poll();
      const schema = this.schema.properties?.[property];
      if (!schema) {
        if (!(other instanceof SchemaObject)) return false;
        if (Object.hasOwn(other.raw, property) && !rawEqual(raw, other.raw[property])) return false;
        continue;
      }
      const theirs = other instanceof SchemaObject ? other.field(property) : other.get(escapeName(property) ?? property);
      if (theirs === undefined) return false;
      const eq = valuesEqual(this.field(property) ?? valueOf(raw, schema), theirs);
      if (eq !== true) return eq;
    }
    return true;
  }
  *keys(): Iterable<Value> {
    for (const property of Object.keys(this.raw)) {
      if (!this.schema.properties?.[property]) continue;
      yield escapeName(property) ?? property;
    }
  }
}

/** Whether two JSON values are the same data (objects in any key order). */
function rawEqual(a: Raw, b: Raw): boolean {
  if (a === b) return true;
  poll();
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => rawEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && rawEqual(a[k], b[k]));
  }
  return false;
}

/** An object of additionalProperties: a map from string to the values' schema. */
export class SchemaMap extends MapValue {
  private readonly cache = new Map<string, Value>();
  constructor(
    readonly raw: RawObject,
    readonly valueSchema: SchemaNode,
  ) {
    super();
  }
  size(): number {
    return Object.keys(this.raw).length;
  }
  get(key: Value): Value | undefined {
    if (typeof key !== 'string' || !Object.hasOwn(this.raw, key)) return undefined;
    let value = this.cache.get(key);
    if (value === undefined) {
      value = valueOf(this.raw[key], this.valueSchema);
      this.cache.set(key, value);
    }
    return value;
  }
  keys(): Iterable<Value> {
    return Object.keys(this.raw);
  }
}

/** A list (atomic, or with no list type): ordered equality, concatenation keeps both. */
export class SchemaList extends ListValue {
  private converted: Value[] | undefined;
  constructor(
    readonly raw: readonly Raw[],
    readonly itemSchema: SchemaNode,
  ) {
    super();
  }
  size(): number {
    return this.raw.length;
  }
  get(index: number): Value {
    this.converted ??= new Array<Value>(this.raw.length);
    let v = this.converted[index];
    if (v === undefined) {
      v = valueOf(this.raw[index], this.itemSchema);
      this.converted[index] = v;
    }
    return v;
  }
  *values(): Iterable<Value> {
    for (let i = 0; i < this.raw.length; i++) yield this.get(i);
  }
}

/**
 * The elements of a set, looked up as upstream's Go map looks them up: by type and value (1 and
 * 1.0 are two elements). JavaScript's Set already keeps bigint, number, string and bool apart;
 * uints (boxed) are kept by value in a set of their own; a NaN is found by nothing, as in Go.
 */
class ElementSet {
  private readonly scalars = new Set<unknown>();
  private readonly uints = new Set<bigint>();

  /** Whether `v` can be looked up here: a scalar. */
  static holds(v: Value): boolean {
    return typeof v !== 'object' || v === null || v instanceof UInt;
  }

  has(v: Value): boolean {
    if (v instanceof UInt) return this.uints.has(v.value);
    return !(typeof v === 'number' && Number.isNaN(v)) && this.scalars.has(v);
  }

  add(v: Value): void {
    if (v instanceof UInt) this.uints.add(v.value);
    else if (!(typeof v === 'number' && Number.isNaN(v))) this.scalars.add(v);
  }
}

/** The elements of a set list, or undefined when one is not a scalar (then compared one by one). */
function elementSet(list: ListValue): ElementSet | undefined {
  const set = new ElementSet();
  for (const v of list.values()) {
    poll();
    if (!ElementSet.holds(v)) return undefined;
    set.add(v);
  }
  return set;
}

/**
 * A list with x-kubernetes-list-type set: equal when the same elements, in any order; + appends
 * what is new. Scalars are looked up by key (upstream's Go map), so both are linear in the lists'
 * lengths, as their cost (1 for +) assumes.
 */
export class SchemaSetList extends SchemaList {
  override equals(other: ListValue): boolean | ErrorValue {
    if (this.size() !== other.size()) return false;
    const mine = elementSet(this);
    for (const element of other.values()) {
      poll();
      const found = mine && ElementSet.holds(element) ? mine.has(element) : this.contains(element);
      if (found !== true) return found;
    }
    return true;
  }
  override concat(other: ListValue): ListValue {
    const items: Value[] = [...this.values()];
    const mine = elementSet(this);
    for (const element of other.values()) {
      poll();
      if (mine && ElementSet.holds(element)) {
        if (mine.has(element)) continue;
        mine.add(element);
      } else if (items.some((item) => valuesEqual(item, element) === true)) {
        continue;
      }
      items.push(element);
    }
    return new ComputedSetList(items);
  }
}

/** A set list made by concatenation: still a set. */
class ComputedSetList extends SchemaSetList {
  constructor(private readonly items: Value[]) {
    super([], {});
  }
  override size(): number {
    return this.items.length;
  }
  override get(index: number): Value {
    return this.items[index]!;
  }
  override *values(): Iterable<Value> {
    yield* this.items;
  }
}

/** A list with x-kubernetes-list-type map: equal when the same keys hold equal items; + overwrites by key. */
export class SchemaMapList extends SchemaList {
  constructor(
    raw: readonly Raw[],
    itemSchema: SchemaNode,
    readonly keyNames: readonly string[],
  ) {
    super(raw, itemSchema);
  }
  /** The identity of an item by its key fields (escaped, as the expression sees them). */
  keyOf(item: Value): string {
    if (!(item instanceof MapValue)) return `!${Math.random()}`;
    return JSON.stringify(this.keyNames.map((k) => String(item.get(escapeName(k) ?? k) ?? null)));
  }
  override equals(other: ListValue): boolean | ErrorValue {
    if (this.size() !== other.size()) return false;
    const mine = new Map<string, Value>();
    for (const item of this.values()) {
      poll();
      mine.set(this.keyOf(item), item);
    }
    for (const item of other.values()) {
      poll();
      const match = mine.get(this.keyOf(item));
      if (match === undefined) return false;
      const eq = valuesEqual(match, item);
      if (eq !== true) return eq;
    }
    return true;
  }
  override concat(other: ListValue): ListValue {
    const items: Value[] = [...this.values()];
    const at = new Map<string, number>();
    items.forEach((item, i) => at.set(this.keyOf(item), i));
    for (const item of other.values()) {
      poll();
      const key = this.keyOf(item);
      const position = at.get(key);
      if (position !== undefined) items[position] = item;
      else {
        at.set(key, items.length);
        items.push(item);
      }
    }
    return new ComputedMapList(items, this.keyNames);
  }
}

class ComputedMapList extends SchemaMapList {
  constructor(
    private readonly items: Value[],
    keyNames: readonly string[],
  ) {
    super([], {}, keyNames);
  }
  override size(): number {
    return this.items.length;
  }
  override get(index: number): Value {
    return this.items[index]!;
  }
  override *values(): Iterable<Value> {
    yield* this.items;
  }
}
