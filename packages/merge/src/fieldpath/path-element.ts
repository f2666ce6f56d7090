// Path elements in their FieldsV1 spelling: `f:<field>`, `k:<sorted key object>`, `v:<set value>`,
// `i:<index>`; their canonical form, upstream's order, and upstream's human-readable form.

/** One step of a field path, spelled as in FieldsV1 (canonical: `k:` and `v:` in Go's JSON). */
export type PathElement = string;

/** A field path from the object's root. */
export type FieldPath = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return 'f:' + name;
}

/** `v:` for a set item. */
export function valueElement(value: unknown): PathElement {
  return 'v:' + goJSON(value);
}

/** `k:` for a map-list item, from its key fields (given in any order). */
export function keyElement(fields: Record<string, unknown>): PathElement {
  const names = Object.keys(fields).sort(compareStrings);
  let out = 'k:{';
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ',';
    out += goString(names[i]!) + ':' + goJSON(fields[names[i]!]);
  }
  return out + '}';
}

/**
 * JSON as Go's encoding/json (and jsoniter's standard-compatible mode) writes it: object keys
 * sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped in strings.
 */
export function goJSON(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return goString(value);
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return '[' + value.map(goJSON).join(',') + ']';
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record).sort(compareStrings);
      return '{' + keys.map((k) => goString(k) + ':' + goJSON(record[k])).join(',') + '}';
    }
    default:
      return 'null';
  }
}

const htmlUnsafe = /[<>&\u2028\u2029]/g;
const hasHtmlUnsafe = /[<>&\u2028\u2029]/;
const htmlEscapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

// Strings that JSON writes verbatim between quotes, in Go's escaping as in JSON's.
const plainString = /^[^"\\\u0000-\u001f<>&\u007f-\uffff]*$/;

function goString(value: string): string {
  if (plainString.test(value)) return '"' + value + '"';
  const json = JSON.stringify(value);
  return hasHtmlUnsafe.test(json) ? json.replace(htmlUnsafe, (c) => htmlEscapes[c]!) : json;
}

/** Go's strings.Compare (byte order of UTF-8) for the strings our objects hold. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const rank = (pe: PathElement): number => {
  switch (pe.charCodeAt(0)) {
    case 102: // f
      return 0;
    case 107: // k
      return 1;
    case 118: // v
      return 2;
    case 105: // i
      return 3;
    default:
      return 4;
  }
};

const parsedCache = new Map<string, unknown>();

/** The JSON value after the `k:` or `v:` prefix (cached: the same elements recur in every request). */
function parsedValue(pe: PathElement): unknown {
  let value = parsedCache.get(pe);
  if (value === undefined && !parsedCache.has(pe)) {
    value = JSON.parse(pe.slice(2));
    if (parsedCache.size > 50000) parsedCache.clear();
    parsedCache.set(pe, value);
  }
  return value;
}

/** Upstream's PathElement.Compare: fields, then keys, then values, then indices. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a === b) return 0;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return compareStrings(a, b);
    case 1:
      return compareKeyFields(parsedValue(a) as Record<string, unknown>, parsedValue(b) as Record<string, unknown>);
    case 2:
      return compareValues(parsedValue(a), parsedValue(b));
    case 3:
      return Number(a.slice(2)) - Number(b.slice(2));
    default:
      return compareStrings(a, b);
  }
}

function compareKeyFields(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const ak = Object.keys(a).sort(compareStrings);
  const bk = Object.keys(b).sort(compareStrings);
  for (let i = 0; ; i++) {
    if (i >= ak.length && i >= bk.length) return 0;
    if (i >= ak.length) return -1;
    if (i >= bk.length) return 1;
    const c = compareStrings(ak[i]!, bk[i]!) || compareValues(a[ak[i]!], b[bk[i]!]);
    if (c !== 0) return c;
  }
}

const valueRank = (v: unknown): number => {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5; // null
};

/** Upstream's value.Compare: numbers, strings, booleans, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) - (b as number);
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const al = a as unknown[];
      const bl = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= al.length && i >= bl.length) return 0;
        if (i >= al.length) return -1;
        if (i >= bl.length) return 1;
        const c = compareValues(al[i], bl[i]);
        if (c !== 0) return c;
      }
    }
    case 4:
      return compareKeyFields(a as Record<string, unknown>, b as Record<string, unknown>);
    default:
      return 0;
  }
}

/**
 * The canonical spelling of a path element read from stored FieldsV1, or undefined for an element
 * type this version does not know (upstream drops those). Throws for a malformed element.
 */
export function canonicalElement(key: string): PathElement | undefined {
  const first = key.charCodeAt(0);
  if (first === 102 /* f */ && key.charCodeAt(1) === 58 /* : */) return key;
  let canonical = canonicalCache.get(key);
  if (canonical === undefined) {
    canonical = canonicalize(key) ?? '';
    if (canonicalCache.size > 50000) canonicalCache.clear();
    canonicalCache.set(key, canonical);
  }
  return canonical === '' ? undefined : canonical;
}

const canonicalCache = new Map<string, PathElement>();

function canonicalize(key: string): PathElement | undefined {
  if (key.length < 2 || key[1] !== ':') throw new Error(`parsing key as path element: invalid path element ${JSON.stringify(key)}`);
  switch (key[0]) {
    case 'f':
      return key;
    case 'i': {
      const index = Number(key.slice(2));
      if (!Number.isInteger(index)) throw new Error(`parsing key as path element: invalid index in ${JSON.stringify(key)}`);
      return 'i:' + index;
    }
    case 'k':
    case 'v': {
      let value: unknown;
      try {
        value = JSON.parse(key.slice(2));
      } catch {
        throw new Error(`parsing key as path element: invalid JSON in ${JSON.stringify(key)}`);
      }
      if (key[0] === 'v') return valueElement(value);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new Error(`parsing key as path element: key ${JSON.stringify(key)} is not an object`);
      }
      return keyElement(value as Record<string, unknown>);
    }
    default:
      return undefined;
  }
}

/** Upstream's value.ToString, used in path strings. */
function valueString(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return '[' + value.map(valueString).join(',') + ']';
  const record = value as Record<string, unknown>;
  return Object.keys(record)
    .map((k) => `${k}=${valueString(record[k])}`)
    .join('');
}

/** Upstream's PathElement.String: `.name`, `[key="a",other=1]`, `[="value"]`, `[3]`. */
export function elementString(pe: PathElement): string {
  switch (pe[0]) {
    case 'f':
      return '.' + pe.slice(2);
    case 'k': {
      const fields = parsedValue(pe) as Record<string, unknown>;
      return (
        '[' +
        Object.keys(fields)
          .sort(compareStrings)
          .map((k) => `${k}=${valueString(fields[k])}`)
          .join(',') +
        ']'
      );
    }
    case 'v':
      return `[=${valueString(parsedValue(pe))}]`;
    case 'i':
      return `[${pe.slice(2)}]`;
    default:
      return '{{invalid path element}}';
  }
}

/** Upstream's Path.String: `.spec.containers[name="a"].image`. */
export function pathString(path: FieldPath): string {
  let out = '';
  for (const pe of path) out += elementString(pe);
  return out;
}
