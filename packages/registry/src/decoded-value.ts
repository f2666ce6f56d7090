// What a typed decoder does with values that JSON allows and a field's type does not, done to a
// decoded body before its schema check:
// - a null is an unset field; as the element of a map or a list of scalars it is the element type's
//   zero value (upstream stores `labels: {"a": null}` as "", and a null quantity as "0"); a null
//   the schema allows (`nullable: true`) or has a default for is kept, as upstream keeps it for a
//   custom resource (its defaulting then fills in the default);
// - a number literal too long for a double arrives as a tagged literal (@plat/apimachinery
//   exact-number): a quantity keeps its text, as upstream parses the literal; an integer field
//   refuses it, since it cannot be held exactly; any other number is rounded, as a float64 is.
// Fields the schema does not declare are left alone: they are pruned after the check.
import { taggedNumberLiteral } from '@plat/apimachinery';
import type { JSONSchema } from './definition.js';

const asSchema = (value: unknown): JSONSchema | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JSONSchema) : undefined;

/** Below this, the schema says nothing: preserve-unknown-fields, or a schema with no type. */
const untyped = (schema: JSONSchema | undefined): boolean =>
  !schema || schema['x-kubernetes-preserve-unknown-fields'] === true || (schema.type === undefined && !schema.properties && !schema.items);

function hasType(schema: JSONSchema, type: string): boolean {
  return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}

/** Whether a null is a value of its own here: allowed (nullable), or to be replaced by a default. */
const keepsNull = (schema: JSONSchema | undefined): boolean => schema !== undefined && (schema.nullable === true || Object.hasOwn(schema, 'default'));

/** The zero value Go decodes a null into, for scalar element types; undefined for the rest. */
function zeroValue(schema: JSONSchema | undefined): unknown {
  if (!schema) return undefined;
  if (schema.format === 'quantity') return '0';
  if (schema['x-kubernetes-int-or-string'] === true) return 0;
  if (schema.type === 'string') return '';
  if (schema.type === 'integer' || schema.type === 'number') return 0;
  if (schema.type === 'boolean') return false;
  return undefined;
}

const child = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/**
 * Normalizes `value` in place as described above, and returns what stands in its place (a
 * replaced tagged literal). Type errors (`path: message`) are added to `errors`.
 */
export function normalizeDecoded(value: unknown, schema: JSONSchema | undefined, path: string, errors: string[]): unknown {
  const literal = taggedNumberLiteral(value);
  if (literal !== undefined) return resolveLiteral(literal, schema, path, errors);
  if (value === null || typeof value !== 'object') return value;
  const typed = !untyped(schema);
  if (Array.isArray(value)) {
    const items = typed ? asSchema(schema!.items) : undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index];
      if (item === null) {
        if (keepsNull(items)) continue;
        const zero = zeroValue(items);
        if (zero !== undefined) value[index] = zero;
      } else {
        value[index] = normalizeDecoded(item, items, `${path}[${index}]`, errors);
      }
    }
    return value;
  }
  const object = value as Record<string, unknown>;
  const properties = typed ? (asSchema(schema!.properties) as Record<string, JSONSchema> | undefined) : undefined;
  const additional = typed ? asSchema(schema!.additionalProperties) : undefined;
  for (const key of Object.keys(object)) {
    const declared = properties && Object.hasOwn(properties, key) ? properties[key] : undefined;
    const fieldSchema = declared ?? additional;
    // Undeclared in a typed object: pruned after the check, whatever it holds.
    if (typed && !fieldSchema) continue;
    if (object[key] === null) {
      if (keepsNull(fieldSchema)) continue;
      const zero = declared ? undefined : zeroValue(fieldSchema);
      if (zero === undefined) delete object[key];
      else object[key] = zero;
    } else {
      object[key] = normalizeDecoded(object[key], fieldSchema, child(path, key), errors);
    }
  }
  return object;
}

function resolveLiteral(literal: string, schema: JSONSchema | undefined, path: string, errors: string[]): unknown {
  if (schema?.format === 'quantity') return literal;
  const where = path || '<root>';
  if (schema && hasType(schema, 'integer') && !hasType(schema, 'number')) {
    errors.push(`${where}: ${integerRangeMessage(literal, typeof schema.format === 'string' ? schema.format : 'int64')}`);
    return 0;
  }
  const number = Number(literal);
  if (!Number.isFinite(number)) {
    errors.push(`${where}: cannot unmarshal number ${literal}: value out of range`);
    return 0;
  }
  return number;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Whether `value` fits the integer format (int64: exactly, so within a double's safe integers). */
export function fitsIntegerFormat(value: number, format: 'int32' | 'int64'): boolean {
  return format === 'int32' ? Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX : Number.isSafeInteger(value);
}

/**
 * Why an integer (its literal) does not fit: past the Go type's range, upstream's decoder's words;
 * within an int64 but past 2^53, that this server cannot hold it exactly (a JavaScript number).
 */
export function integerRangeMessage(literal: string, format: string): string {
  const value = Number(literal);
  if (format === 'int32' || Math.abs(value) >= 2 ** 63 || !Number.isFinite(value)) {
    return `cannot unmarshal number ${literal} into a field of type ${format}`;
  }
  return `${literal} cannot be held exactly: integers here must lie within ±${Number.MAX_SAFE_INTEGER}`;
}

/**
 * Untyped JSON (an unstructured object's fields): every tagged literal read as a number, the rest
 * as it is. An integer literal an int64 holds but a double does not is refused (upstream keeps it
 * exactly); any other literal is rounded, as a float64 is.
 */
export function resolveNumberLiterals(value: unknown, path: string, errors: string[]): unknown {
  const literal = taggedNumberLiteral(value);
  if (literal !== undefined) {
    const number = Number(literal);
    if (/^-?\d+$/.test(literal) && Math.abs(number) < 2 ** 63) {
      errors.push(`${path}: ${integerRangeMessage(literal, 'int64')}`);
      return 0;
    }
    if (!Number.isFinite(number)) {
      errors.push(`${path}: cannot unmarshal number ${literal}: value out of range`);
      return 0;
    }
    return number;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) value[index] = resolveNumberLiterals(value[index], `${path}[${index}]`, errors);
    return value;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) object[key] = resolveNumberLiterals(object[key], child(path, key), errors);
  return object;
}
