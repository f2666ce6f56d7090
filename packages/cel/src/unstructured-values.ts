// JSON data with no schema as expression values, as cel-go's native type adapter reads Kubernetes'
// unstructured objects (map[string]interface{}): objects are maps of string to dyn, arrays lists,
// whole numbers int, other numbers double. Read in place; nested values are converted when first read.
import { taggedNumberLiteral } from '@plat/apimachinery';
import { ListValue, MapValue, type Value } from './values.js';

type Raw = unknown;

const isObject = (v: Raw): v is Record<string, Raw> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value of JSON data `raw` (undefined is null, as a missing object is). */
export function unstructuredValue(raw: Raw): Value {
  switch (typeof raw) {
    case 'string': {
      // A number literal a double would round, as the decoder carried it (an untyped field).
      const literal = taggedNumberLiteral(raw);
      if (literal === undefined) return raw;
      return /^-?\d+$/.test(literal) ? BigInt(literal) : Number(literal);
    }
    case 'boolean':
      return raw;
    case 'number':
      // JSON text does not say whether 1.0 was a float: whole numbers are Go's int64.
      return Number.isInteger(raw) && Number.isSafeInteger(raw) ? BigInt(raw) : raw;
    case 'bigint':
      return raw;
  }
  if (raw === null || raw === undefined) return null;
  if (Array.isArray(raw)) return new UnstructuredList(raw);
  if (isObject(raw)) return new UnstructuredMap(raw);
  return null;
}

export class UnstructuredMap extends MapValue {
  private readonly cache = new Map<string, Value>();
  constructor(readonly raw: Readonly<Record<string, Raw>>) {
    super();
  }
  size(): number {
    return Object.keys(this.raw).length;
  }
  get(key: Value): Value | undefined {
    if (typeof key !== 'string' || !Object.hasOwn(this.raw, key)) return undefined;
    let v = this.cache.get(key);
    if (v === undefined) {
      v = unstructuredValue(this.raw[key]);
      this.cache.set(key, v);
    }
    return v;
  }
  keys(): Iterable<Value> {
    return Object.keys(this.raw);
  }
}

export class UnstructuredList extends ListValue {
  private readonly cache: (Value | undefined)[] = [];
  constructor(readonly raw: readonly Raw[]) {
    super();
  }
  size(): number {
    return this.raw.length;
  }
  get(index: number): Value {
    let v = this.cache[index];
    if (v === undefined) {
      v = unstructuredValue(this.raw[index]);
      this.cache[index] = v;
    }
    return v;
  }
  *values(): Iterable<Value> {
    for (let i = 0; i < this.raw.length; i++) yield this.get(i);
  }
}
