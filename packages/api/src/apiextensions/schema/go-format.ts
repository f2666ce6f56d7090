// How upstream's messages print a decoded JSON value: Go's %v for a number (an int64 or a float64
// of an unstructured object) and %#v for a map or a list, so that our messages read the same.
import { GoFormatted, goQuote } from '@plat/apimachinery';

/**
 * Whether a decoded number is an int64 in upstream's unstructured form. Go decodes `3` as an int64
 * and `3.5` (and `3.0`, which JavaScript cannot tell from `3`) as a float64.
 */
export const isInt64 = (value: number): boolean => Number.isInteger(value) && Math.abs(value) < 2 ** 63;

/** Go's %v of a float64: the shortest digits, in exponent form below 1e-4 and from 1e+06 on. */
export function goFloat(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  // Within this range JavaScript's own shortest form is the plain decimal Go prints.
  return String(value);
}

/** Go's %v of a decoded number: an int64's digits, a float64's shortest form. */
export const goNumber = (value: number): string => (isInt64(value) ? String(value) : goFloat(value));

/** Go's %#v of a decoded JSON value (`map[string]interface {}{"a":1}`, `[]interface {}{"x", 2}`). */
export function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  const object = value as Record<string, unknown>;
  const entries = Object.keys(object)
    .sort()
    .map((key) => `${goQuote(key)}:${goSyntax(object[key])}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
}

/**
 * A field error's bad value as upstream's field.Error prints it: a string quoted, an int64 or bool
 * as is, a float64 by %v, nil as "null" (quoted: upstream substitutes the string), maps and lists by
 * %#v.
 */
export function badValue(value: unknown): unknown {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return isInt64(value) ? value : new GoFormatted(goFloat(value));
  if (typeof value === 'object') return new GoFormatted(goSyntax(value));
  return value;
}

/** JSON with object keys sorted, as Go's encoding/json writes a map: for comparing and printing values. */
export function canonicalJSON(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(',')}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJSON(object[key])}`)
    .join(',')}}`;
}

/** Go's %v of a decoded JSON value: `abc`, `1.5`, `[a 1]`, `map[a:1]`, `<nil>`. */
export function goPlain(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number') return goNumber(value);
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(goPlain).join(' ')}]`;
  const object = value as Record<string, unknown>;
  return `map[${Object.keys(object)
    .sort()
    .map((key) => `${key}:${goPlain(object[key])}`)
    .join(' ')}]`;
}

/** Go's %T of a decoded JSON value. */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return '[]interface {}';
  switch (typeof value) {
    case 'number':
      return isInt64(value) ? 'int64' : 'float64';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    default:
      return 'map[string]interface {}';
  }
}
