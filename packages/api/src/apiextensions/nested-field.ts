// A field of an unstructured object (a custom resource) read and written by its path, as upstream's
// unstructured.Nested* helpers do it, with their messages: upstream's scale subresource answers
// with them as they are.

/** A value where the path wanted another type (upstream's "accessor error"). */
export class NestedFieldError extends Error {
  override readonly name = 'NestedFieldError';
}

/** `.spec.replicas`: the path as upstream's messages print it. */
const jsonPath = (fields: readonly string[]): string => `.${fields.join('.')}`;

const isMap = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Go's %T of a value decoded from JSON into interface{} (whole numbers are int64 there). */
function goType(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}';
}

/** Go's %v of such a value: maps with their keys sorted, lists space-separated. */
function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (isMap(value)) return `map[${Object.keys(value).sort().map((key) => `${key}:${goFormat(value[key])}`).join(' ')}]`;
  return String(value);
}

const accessorError = (fields: readonly string[], value: unknown, expected: string): NestedFieldError =>
  new NestedFieldError(`${jsonPath(fields)} accessor error: ${goFormat(value)} is of the type ${goType(value)}, expected ${expected}`);

/** The value at `fields`, or undefined when it is missing (or a map on the way is null). */
function nestedValue(object: unknown, fields: readonly string[]): { found: boolean; value: unknown } {
  let value = object;
  for (const [i, field] of fields.entries()) {
    if (value === null || value === undefined) return { found: false, value: undefined };
    if (!isMap(value)) throw accessorError(fields.slice(0, i + 1), value, 'map[string]interface{}');
    if (!Object.hasOwn(value, field)) return { found: false, value: undefined };
    value = value[field];
  }
  return { found: true, value };
}

/** The whole number at `fields` (undefined when missing); anything else there is a NestedFieldError. */
export function nestedInteger(object: unknown, fields: readonly string[]): number | undefined {
  const { found, value } = nestedValue(object, fields);
  if (!found) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw accessorError(fields, value, 'int64');
  return value;
}

/** The string at `fields` (undefined when missing); anything else there is a NestedFieldError. */
export function nestedString(object: unknown, fields: readonly string[]): string | undefined {
  const { found, value } = nestedValue(object, fields);
  if (!found) return undefined;
  if (typeof value !== 'string') throw accessorError(fields, value, 'string');
  return value;
}

/** Sets the value at `fields`, making the maps on the way; a value on the way that is no map is a NestedFieldError. */
export function setNestedField(object: Record<string, unknown>, value: unknown, fields: readonly string[]): void {
  let map = object;
  for (const [i, field] of fields.slice(0, -1).entries()) {
    const next = map[field];
    if (next === undefined) {
      const made: Record<string, unknown> = {};
      map[field] = made;
      map = made;
    } else if (isMap(next)) {
      map = next;
    } else {
      throw new NestedFieldError(`value cannot be set because ${jsonPath(fields.slice(0, i + 1))} is not a map[string]interface{}`);
    }
  }
  map[fields[fields.length - 1]!] = value;
}
