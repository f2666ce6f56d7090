// The OpenAPI schema validator upstream runs on a custom resource (kube-openapi pkg/validation/validate
// as 1.28 uses it, through apiextensions' NewSchemaValidator): its rules, its order, its paths
// (`spec.items[0].name`, map entries as `.key`) and its messages (`spec.replicas in body must be of
// type integer: "string"`). The result is upstream's list of errors, turned into field errors by
// validate.ts.
import { goQuote } from '@plat/apimachinery';
import type { JSONSchemaProps } from '../types.js';
import { matchesFormat, supportedFormat } from './formats.js';
import { goFloat, goNumber, isInt64 } from './go-format.js';
import { compilePattern } from './pattern.js';

/** kube-openapi's error codes (errors.Validation.Code()) that the conversion to field errors tells apart. */
export type IssueCode =
  | 'invalidType'
  | 'required'
  | 'tooLong'
  | 'tooShort'
  | 'pattern'
  | 'enum'
  | 'multipleOf'
  | 'maximum'
  | 'minimum'
  | 'unique'
  | 'maxItems'
  | 'minItems'
  | 'tooFewProperties'
  | 'tooManyProperties'
  | 'unallowedProperty'
  | 'multipleOfMustBePositive';

/** One error of the validator: a Validation (with a code) or a composite one (anyOf, oneOf, allOf, not). */
export interface ValidationIssue {
  code: IssueCode | 'composite';
  /** The path as kube-openapi names it: '' for the root, `.name` for a root map entry. */
  name: string;
  /** The offending value (undefined: Go's nil). */
  value?: unknown;
  /** The bound a count broke (maxItems, maxLength, maxProperties). */
  valid?: number;
  /** The allowed values of an enum. */
  values?: readonly unknown[];
  message: string;
}

/** A validation result: errors (each message once) and how many checks passed, which picks anyOf/oneOf's best failure. */
class Result {
  readonly issues: ValidationIssue[] = [];
  matchCount = 0;

  get valid(): boolean {
    return this.issues.length === 0;
  }

  add(issue: ValidationIssue): this {
    if (!this.issues.some((known) => known.message === issue.message)) this.issues.push(issue);
    return this;
  }

  merge(...others: (Result | undefined)[]): this {
    for (const other of others) {
      if (!other) continue;
      for (const issue of other.issues) this.add(issue);
      this.matchCount += other.matchCount;
    }
    return this;
  }
}

const failure = (issue: ValidationIssue): Result => new Result().add(issue);

/** A check that passed: one match. */
function matched(): Result {
  const result = new Result();
  result.matchCount = 1;
  return result;
}

const IN = 'body';

type Kind = 'null' | 'boolean' | 'string' | 'integer' | 'number' | 'array' | 'object';

function kindOf(value: unknown): Kind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    case 'number':
      return isInt64(value) ? 'integer' : 'number';
    default:
      return 'object';
  }
}

/** The types the validator sees: an int-or-string is integer or string. */
function typesOf(schema: JSONSchemaProps): string[] {
  if (schema['x-kubernetes-int-or-string'] === true) return ['integer', 'string'];
  return schema.type ? [schema.type] : [];
}

const childPath = (path: string, name: string): string => (path ? `${path}.${name}` : name);

function invalidType(name: string, typeName: string, value: string): ValidationIssue {
  return { code: 'invalidType', name, value, message: `${name} in ${IN} must be of type ${typeName}: ${goQuote(value)}` };
}

/** The JSON type and the Go format the validator infers for a decoded value. */
function inferred(kind: Kind): [string, string] {
  if (kind === 'integer') return ['integer', 'int64'];
  if (kind === 'number') return ['number', 'float64'];
  return [kind, ''];
}

function validateType(schema: JSONSchemaProps, value: unknown, path: string): Result {
  const types = typesOf(schema);
  const format = supportedFormat(schema.format);
  if (value === null || value === undefined) {
    if (types.length && !types.includes('null') && schema.nullable !== true) return failure(invalidType(path, types.join(','), 'null'));
    return matched();
  }
  const kind = kindOf(value);
  const [jsonType, goFormat] = inferred(kind);
  const intAsNumber = jsonType === 'integer' && types.includes('number');
  const stringLike = kind === 'string' || kind === 'array';
  if (!stringLike && format && !(types.includes(jsonType) || goFormat === format || intAsNumber)) {
    return failure(invalidType(path, format, goFormat));
  }
  const numeric = types.includes('number') || types.includes('integer');
  if (!(!numeric && format && stringLike) && !(types.includes(jsonType) || intAsNumber)) {
    return failure(invalidType(path, types.join(','), jsonType));
  }
  return matched();
}

function validateString(schema: JSONSchemaProps, value: string, path: string): Result | undefined {
  // Counted in code points, as Go counts runes; only when a bound asks.
  const length = schema.maxLength !== undefined || schema.minLength !== undefined ? [...value].length : 0;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    return failure({ code: 'tooLong', name: path, value, valid: schema.maxLength, message: `${path} in ${IN} should be at most ${schema.maxLength} chars long` });
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    return failure({ code: 'tooShort', name: path, value, valid: schema.minLength, message: `${path} in ${IN} should be at least ${schema.minLength} chars long` });
  }
  if (schema.pattern) {
    const pattern = compilePattern(schema.pattern);
    if (typeof pattern === 'string') {
      return failure({ code: 'pattern', name: path, value, message: `${path} in ${IN} should match '${schema.pattern}, but pattern is invalid: ${pattern}'` });
    }
    if (!pattern.test(value)) return failure({ code: 'pattern', name: path, value, message: `${path} in ${IN} should match '${schema.pattern}'` });
  }
  return undefined;
}

function validateFormat(format: string, value: string, path: string): Result | undefined {
  if (matchesFormat(format, value)) return undefined;
  return failure(invalidType(path, format, value));
}

const MAX_JSON_INTEGER = 2 ** 53 - 1;

/** swag's IsFloat64AJSONInteger: an integer, or within a relative 1e-9 of the integer below it. */
function isJSONInteger(value: number): boolean {
  if (!Number.isFinite(value) || Math.abs(value) > MAX_JSON_INTEGER) return false;
  if (Number.isInteger(value)) return true;
  // Go converts through uint64: a negative fraction has no nearby integer there.
  if (value < 0) return false;
  const below = Math.trunc(value);
  return (value - below) / (value + below) < 1e-9;
}

function multipleOfIssue(schema: JSONSchemaProps, value: number, path: string): ValidationIssue | undefined {
  const factor = schema.multipleOf!;
  // An int64 value is checked against the factor truncated to an int64 (kube-openapi's MultipleOfInt).
  if (isInt64(value)) {
    const whole = Math.trunc(factor);
    if (whole <= 0) return mustBePositive(path, whole, String(whole));
    if (Math.trunc(value / whole) * whole === value) return undefined;
    return { code: 'multipleOf', name: path, value, message: `${path} in ${IN} should be a multiple of ${whole}` };
  }
  if (factor <= 0) return mustBePositive(path, factor, goFloat(factor));
  const multiple = factor < 1 ? (1 / factor) * value : value / factor;
  if (isJSONInteger(multiple)) return undefined;
  return { code: 'multipleOf', name: path, value, message: `${path} in ${IN} should be a multiple of ${goFloat(factor)}` };
}

function mustBePositive(path: string, factor: number, printed: string): ValidationIssue {
  return { code: 'multipleOfMustBePositive', name: path, value: factor, message: `factor MultipleOf declared for ${path} must be positive: ${printed}` };
}

/** A bound as the validator compares and prints it: truncated to an int64 for an int64 value. */
function bound(limit: number, value: number): [number, string] {
  if (isInt64(value)) {
    const whole = Math.trunc(limit);
    return [whole, String(whole)];
  }
  return [limit, goFloat(limit)];
}

function validateNumber(schema: JSONSchemaProps, value: number, path: string): Result {
  const result = new Result();
  const multiple = schema.multipleOf !== undefined ? multipleOfIssue(schema, value, path) : undefined;
  if (multiple) result.add(multiple);
  if (schema.minimum !== undefined) {
    const [minimum, printed] = bound(schema.minimum, value);
    const exclusive = schema.exclusiveMinimum === true;
    if (exclusive ? value <= minimum : value < minimum) {
      const relation = exclusive ? 'greater than' : 'greater than or equal to';
      result.add({ code: 'minimum', name: path, value, message: `${path} in ${IN} should be ${relation} ${printed}` });
    }
  }
  if (schema.maximum !== undefined) {
    const [maximum, printed] = bound(schema.maximum, value);
    const exclusive = schema.exclusiveMaximum === true;
    if (exclusive ? value >= maximum : value > maximum) {
      const relation = exclusive ? 'less than' : 'less than or equal to';
      result.add({ code: 'maximum', name: path, value, message: `${path} in ${IN} should be ${relation} ${printed}` });
    }
  }
  result.matchCount++;
  return result;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => deepEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && deepEqual(left[key], right[key]));
}

function validateItems(schema: JSONSchemaProps, value: unknown[], path: string): Result {
  const result = new Result();
  const items = schema.items;
  if (items && !Array.isArray(items)) {
    value.forEach((item, index) => result.merge(validateValue(items, item, `${path}[${index}]`)));
  } else if (Array.isArray(items)) {
    items.forEach((itemSchema, index) => {
      if (index < value.length) result.merge(validateValue(itemSchema, value[index], `${path}[${index}]`));
    });
  }
  const size = value.length;
  if (schema.minItems !== undefined && size < schema.minItems) {
    result.add({ code: 'minItems', name: path, value: size, valid: schema.minItems, message: `${path} in ${IN} should have at least ${schema.minItems} items` });
  }
  if (schema.maxItems !== undefined && size > schema.maxItems) {
    result.add({ code: 'maxItems', name: path, value: size, valid: schema.maxItems, message: `${path} in ${IN} should have at most ${schema.maxItems} items` });
  }
  if (schema.uniqueItems === true && value.some((item, index) => value.slice(0, index).some((earlier) => deepEqual(earlier, item)))) {
    result.add({ code: 'unique', name: path, message: `${path} in ${IN} shouldn't contain duplicates` });
  }
  result.matchCount++;
  return result;
}

/**
 * Whether a value equals an enum member as Go's reflect conversion compares them: a number takes the
 * member's numeric type (an int64 member truncates a float64 value), an int64 converts to a string as
 * a code point, and null equals nothing.
 */
function enumMatches(value: unknown, member: unknown): boolean {
  if (value === null || value === undefined || member === null || member === undefined) return false;
  if (typeof value === 'number' && typeof member === 'number') return (isInt64(member) ? Math.trunc(value) : value) === member;
  if (typeof value === 'number' && typeof member === 'string') {
    if (!isInt64(value)) return false;
    const valid = value >= 0 && value <= 0x10ffff && !(value >= 0xd800 && value <= 0xdfff);
    return (valid ? String.fromCodePoint(value) : '\ufffd') === member;
  }
  if (kindOf(value) !== kindOf(member) && !(typeof value === 'number' && typeof member === 'number')) return false;
  return deepEqual(value, member);
}

/** Go's %v of an enum's members, as the validator's message (not the field error) prints them. */
const goList = (values: readonly unknown[]): string =>
  `[${values.map((value) => (typeof value === 'number' ? goNumber(value) : typeof value === 'string' ? value : value === null ? '<nil>' : JSON.stringify(value))).join(' ')}]`;

function validateEnum(schema: JSONSchemaProps, value: unknown, path: string): Result | undefined {
  const members = schema.enum;
  if (!members?.length) return undefined;
  if (members.some((member) => enumMatches(value, member))) return undefined;
  return failure({ code: 'enum', name: path, value, values: members, message: `${path} in ${IN} should be one of ${goList(members)}` });
}

function validateObject(schema: JSONSchemaProps, value: Record<string, unknown>, path: string): Result {
  const result = new Result();
  const keys = Object.keys(value);
  const properties = schema.properties ?? {};
  if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
    result.add({
      code: 'tooFewProperties',
      name: path,
      value: keys.length,
      valid: schema.minProperties,
      message: `${path} in ${IN} should have at least ${schema.minProperties} properties`,
    });
  }
  if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
    result.add({
      code: 'tooManyProperties',
      name: path,
      value: keys.length,
      valid: schema.maxProperties,
      message: `${path} in ${IN} should have at most ${schema.maxProperties} properties`,
    });
  }
  const additional = schema.additionalProperties;
  for (const key of keys) {
    if (Object.hasOwn(properties, key)) continue;
    if (additional === false) {
      result.add({ code: 'unallowedProperty', name: path, value: key, message: `${path}.${key} in ${IN} is a forbidden property` });
    } else if (additional !== undefined && additional !== true) {
      // Always joined with a dot, even at the root (`.key`): the conversion to field errors trims it.
      result.merge(validateValue(additional, value[key], `${path}.${key}`));
    }
  }
  for (const name in properties) {
    if (Object.hasOwn(properties, name) && Object.hasOwn(value, name)) result.merge(validateValue(properties[name]!, value[name], childPath(path, name)));
  }
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name)) result.add({ code: 'required', name: `${path}.${name}`, message: `${path}.${name} in ${IN} is required` });
  }
  return result;
}

function validateComposition(schema: JSONSchemaProps, value: unknown, path: string): Result {
  const result = new Result();
  const quoted = goQuote(path);
  if (schema.anyOf?.length) {
    let best: Result | undefined;
    let first: Result | undefined;
    for (const branch of schema.anyOf) {
      const outcome = validateValue(branch, value, path);
      if (outcome.valid) {
        first = outcome;
        best = undefined;
        break;
      }
      if (!best || outcome.matchCount > best.matchCount) best = outcome;
    }
    if (!first) result.add({ code: 'composite', name: '', message: `${quoted} must validate at least one schema (anyOf)` });
    result.merge(best ?? first);
  }
  if (schema.oneOf?.length) {
    let best: Result | undefined;
    let first: Result | undefined;
    let valid = 0;
    for (const branch of schema.oneOf) {
      const outcome = validateValue(branch, value, path);
      if (outcome.valid) {
        valid++;
        best = undefined;
        first ??= outcome;
      } else if (valid === 0 && (!best || outcome.matchCount > best.matchCount)) {
        best = outcome;
      }
    }
    if (valid !== 1) {
      const detail = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      result.add({ code: 'composite', name: '', message: `${quoted} must validate one and only one schema (oneOf). ${detail}` });
      result.merge(best);
    } else {
      result.merge(first);
    }
  }
  if (schema.allOf?.length) {
    let valid = 0;
    for (const branch of schema.allOf) {
      const outcome = validateValue(branch, value, path);
      if (outcome.valid) valid++;
      result.merge(outcome);
    }
    if (valid !== schema.allOf.length) {
      result.add({ code: 'composite', name: '', message: `${quoted} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}` });
    }
  }
  if (schema.not && validateValue(schema.not, value, path).valid) {
    result.add({ code: 'composite', name: '', message: `${quoted} must not validate the schema (not)` });
  }
  result.matchCount++;
  return result;
}

/**
 * Validates `value` at `path` against `schema`: every check that applies to the value's JSON type
 * runs, in kube-openapi's order (type, anyOf/oneOf/allOf/not, string, format, number, array, enum,
 * object), so a value of the wrong type can fail more than one. A null is checked for its type and
 * enum only.
 */
function validateValue(schema: JSONSchemaProps, value: unknown, path: string): Result {
  const result = new Result();
  if (value === null || value === undefined) {
    return result.merge(validateType(schema, value, path), validateEnum(schema, value, path));
  }
  const kind = kindOf(value);
  const format = supportedFormat(schema.format);
  // Each check counts one match, and the check itself what it matched (anyOf and oneOf pick their
  // best failure by it). Called in order, without a list of steps: this runs for every value.
  if (typesOf(schema).length || format) step(result, validateType(schema, value, path));
  if (schema.anyOf?.length || schema.oneOf?.length || schema.allOf?.length || schema.not) step(result, validateComposition(schema, value, path));
  // No junctors: what validateComposition would have counted (its one match), and its step.
  else result.matchCount += 2;
  if (kind === 'string') {
    step(result, validateString(schema, value as string, path));
    if (format) step(result, validateFormat(format, value as string, path));
  }
  if (kind === 'integer' || kind === 'number') step(result, validateNumber(schema, value as number, path));
  if (kind === 'array') step(result, validateItems(schema, value as unknown[], path));
  step(result, validateEnum(schema, value, path));
  if (kind === 'object') step(result, validateObject(schema, value as Record<string, unknown>, path));
  result.matchCount++;
  return result;
}

function step(result: Result, outcome: Result | undefined): void {
  if (outcome) result.merge(outcome);
  result.matchCount++;
}

/** The validator's errors for a whole value, in its order, each message once. */
export function validationIssues(schema: JSONSchemaProps, value: unknown): readonly ValidationIssue[] {
  return validateValue(schema, value, '').issues;
}
