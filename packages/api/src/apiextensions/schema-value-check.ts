// A value checked against a schema's value rules, with the messages of upstream's validator
// (kube-openapi's, converted to field errors). CRD validation uses it for the schemas' defaults;
// it covers what defaults need: types (nullable, int-or-string), enum, bounds, lengths, counts,
// required, properties, items and the junctors. Not covered, and so not checked: formats, the
// numeric ranges of int32/int64/float formats, and which failing alternative of an anyOf/oneOf is
// reported (upstream picks the one that matched most; here the first).
import {
  invalid,
  notSupported,
  required,
  tooLongMaxLength,
  tooMany,
  typeInvalid,
  type FieldError,
  type FieldPath,
} from '@plat/apimachinery';
import { goRegexpError } from './go-regexp-syntax.js';
import { additionalPropertiesSchema, isJsonObject, isSet, itemsSchema, jsonEqual, schemaEntries } from './schema-props.js';
import type { JSONSchemaProps, JsonValue } from './types.js';

/** Checks a value against a schema; errors sit under `path` (e.g. `...properties[a].default`). */
export type SchemaValueValidator = (path: FieldPath, value: JsonValue, schema: JSONSchemaProps) => FieldError[];

const IN = 'body';

/** Go's %v of a float64: the shortest form, exponent notation from 1e+06 and below 1e-04. */
export function goFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return '0';
  const [mantissa, exponentText] = n.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(n);
}

/** The JSON type Go's decoder gives a value: whole numbers decode as int64 ("integer"). */
function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    default:
      return 'object';
  }
}

// kube-openapi names a value by its path from the validated root: `a.b`, `a[0]`; the root is ''.
const childName = (name: string, key: string): string => (name ? `${name}.${key}` : key);
const subject = (name: string): string => `${name} in ${IN}`;

interface Problem {
  /** The value's name, as kube-openapi reports it ('' for the root). */
  name: string;
  make(path: FieldPath): FieldError;
}

class Checker {
  readonly problems: Problem[] = [];

  private add(name: string, make: (path: FieldPath) => FieldError): void {
    this.problems.push({ name, make });
  }

  private invalid(name: string, value: unknown, message: string): void {
    this.add(name, (path) => invalid(path, value, message));
  }

  /** A junctor's own message sits at the validated root with an empty value, as upstream's. */
  private composite(message: string): void {
    this.problems.push({ name: '', make: (path) => invalid(path, '', message) });
  }

  check(value: JsonValue, s: JSONSchemaProps, name: string): void {
    if (value === null) {
      this.checkType(value, s, name);
      this.checkEnum(value, s, name);
      return;
    }
    this.checkType(value, s, name);
    this.checkJunctors(value, s, name);
    if (typeof value === 'string') this.checkString(value, s, name);
    if (typeof value === 'number') this.checkNumber(value, s, name);
    if (Array.isArray(value)) this.checkArray(value, s, name);
    this.checkEnum(value, s, name);
    if (isJsonObject(value)) this.checkObject(value, s, name);
  }

  private checkType(value: JsonValue, s: JSONSchemaProps, name: string): void {
    const type = s.type ?? '';
    // A format alone types nothing here (formats are not covered).
    if (!type) return;
    if (value === null) {
      if (!s.nullable) this.typeError(name, type, 'null');
      return;
    }
    // Upstream lets a string or a list through the type check of a non-numeric type with a format.
    if (s.format && type !== 'number' && type !== 'integer' && (typeof value === 'string' || Array.isArray(value))) return;
    const actual = jsonType(value);
    if (type !== actual && !(type === 'number' && actual === 'integer')) this.typeError(name, type, actual);
  }

  private typeError(name: string, type: string, actual: string): void {
    this.add(name, (path) => typeInvalid(path, actual, `${subject(name)} must be of type ${type}: "${actual}"`));
  }

  private checkJunctors(value: JsonValue, s: JSONSchemaProps, name: string): void {
    const run = (schema: JSONSchemaProps): Problem[] => {
      const inner = new Checker();
      inner.check(value, schema, name);
      return inner.problems;
    };
    const anyOf = s.anyOf ?? [];
    if (anyOf.length > 0) {
      let firstFailure: Problem[] | undefined;
      let succeeded = false;
      for (const alternative of anyOf) {
        const problems = run(alternative);
        if (problems.length === 0) {
          succeeded = true;
          break;
        }
        firstFailure ??= problems;
      }
      if (!succeeded) {
        this.composite(`"${name}" must validate at least one schema (anyOf)`);
        this.problems.push(...firstFailure!);
      }
    }
    const oneOf = s.oneOf ?? [];
    if (oneOf.length > 0) {
      let firstFailure: Problem[] | undefined;
      let valid = 0;
      for (const alternative of oneOf) {
        const problems = run(alternative);
        if (problems.length === 0) valid++;
        else if (valid === 0) firstFailure ??= problems;
      }
      if (valid !== 1) {
        this.composite(`"${name}" must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`);
        if (valid === 0) this.problems.push(...firstFailure!);
      }
    }
    const allOf = s.allOf ?? [];
    if (allOf.length > 0) {
      let valid = 0;
      for (const part of allOf) {
        const problems = run(part);
        if (problems.length === 0) valid++;
        this.problems.push(...problems);
      }
      if (valid !== allOf.length) this.composite(`"${name}" must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`);
    }
    if (isSet(s.not) && run(s.not).length === 0) this.composite(`"${name}" must not validate the schema (not)`);
  }

  private checkString(value: string, s: JSONSchemaProps, name: string): void {
    const length = [...value].length;
    if (isSet(s.maxLength) && length > s.maxLength) {
      const max = s.maxLength;
      this.add(name, (path) => tooLongMaxLength(path, value, max));
    }
    if (isSet(s.minLength) && length < s.minLength) this.invalid(name, value, `${subject(name)} should be at least ${s.minLength} chars long`);
    if (s.pattern && goRegexpError(s.pattern) === undefined) {
      const pattern = javascriptPattern(s.pattern);
      if (pattern && !pattern.test(value)) this.invalid(name, value, `${subject(name)} should match '${s.pattern}'`);
    }
  }

  private checkNumber(value: number, s: JSONSchemaProps, name: string): void {
    // An integer is compared as an integer (the bound truncated), a float as a float.
    const show = (bound: number): string => (Number.isInteger(value) ? String(Math.trunc(bound)) : goFloat(bound));
    if (isSet(s.multipleOf)) {
      const factor = s.multipleOf;
      const quotient = value / factor;
      if (factor > 0 && Math.abs(quotient - Math.round(quotient)) > 1e-9) {
        this.invalid(name, value, `${subject(name)} should be a multiple of ${show(factor)}`);
      }
    }
    if (isSet(s.maximum)) {
      const over = s.exclusiveMaximum ? value >= s.maximum : value > s.maximum;
      const relation = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      if (over) this.invalid(name, value, `${subject(name)} should be ${relation} ${show(s.maximum)}`);
    }
    if (isSet(s.minimum)) {
      const under = s.exclusiveMinimum ? value <= s.minimum : value < s.minimum;
      const relation = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      if (under) this.invalid(name, value, `${subject(name)} should be ${relation} ${show(s.minimum)}`);
    }
  }

  private checkArray(value: JsonValue[], s: JSONSchemaProps, name: string): void {
    const items = itemsSchema(s);
    if (items) value.forEach((item, i) => this.check(item, items, `${name}[${i}]`));
    if (isSet(s.minItems) && value.length < s.minItems) this.invalid(name, value.length, `${subject(name)} should have at least ${s.minItems} items`);
    if (isSet(s.maxItems) && value.length > s.maxItems) {
      const max = s.maxItems;
      this.add(name, (path) => tooMany(path, value.length, max));
    }
    if (s.uniqueItems && new Set(value.map(canonicalJSON)).size !== value.length) {
      this.invalid(name, value, `${subject(name)} shouldn't contain duplicates`);
    }
  }

  private checkEnum(value: JsonValue, s: JSONSchemaProps, name: string): void {
    const allowed = s.enum ?? [];
    if (allowed.length === 0 || allowed.some((e) => jsonEqual(e, value))) return;
    const listed = allowed.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    this.add(name, (path) => notSupported(path, value, listed));
  }

  private checkObject(value: { [key: string]: JsonValue }, s: JSONSchemaProps, name: string): void {
    const keys = Object.keys(value);
    if (isSet(s.minProperties) && keys.length < s.minProperties) {
      this.invalid(name, keys.length, `${subject(name)} should have at least ${s.minProperties} properties`);
    }
    if (isSet(s.maxProperties) && keys.length > s.maxProperties) {
      const max = s.maxProperties;
      this.add(name, (path) => tooMany(path, keys.length, max));
    }
    const properties = s.properties ?? {};
    const additional = additionalPropertiesSchema(s);
    for (const key of keys) {
      if (Object.hasOwn(properties, key)) continue;
      if (s.additionalProperties === false) this.invalid(name, key, `${name}.${key} in ${IN} is a forbidden property`);
      else if (additional) this.check(value[key]!, additional, `${name}.${key}`);
    }
    for (const [key, property] of schemaEntries(s.properties)) {
      if (Object.hasOwn(value, key)) this.check(value[key]!, property, childName(name, key));
    }
    for (const key of s.required ?? []) {
      if (!Object.hasOwn(value, key)) this.add(`${name}.${key}`, (path) => required(path, ''));
    }
  }
}

/** JSON with object keys sorted: equal values, equal text. */
function canonicalJSON(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(',')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(value[k]!)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The pattern as a JavaScript expression where both languages read it alike; undefined for the
 * RE2-only forms (flags, \A, \z, \Q, POSIX classes, \p), whose values are then not checked here.
 */
function javascriptPattern(pattern: string): RegExp | undefined {
  if (/\(\?|\\[AzQCpP]|\[\[:|\\x\{/.test(pattern)) return undefined;
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

/** The value's problems against the schema, as upstream's ValidateCustomResource reports them. */
export const checkValueAgainstSchema: SchemaValueValidator = (path, value, schema) => {
  const checker = new Checker();
  checker.check(value, schema, '');
  return checker.problems.map(({ name, make }) => {
    const relative = name.startsWith('.') ? name.slice(1) : name;
    return make(relative && relative !== '.' ? path.child(relative) : path);
  });
};
