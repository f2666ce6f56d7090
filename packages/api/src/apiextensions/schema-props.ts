// Reading a JSONSchemaProps as upstream's Go types hold it: JSON null is absent, `items` is a schema
// or a list of them, `additionalProperties` a schema or a boolean.
import type { JSONSchemaProps, JsonValue } from './types.js';

/** Present in the JSON (null reads as absent, as Go's pointers and slices decode it). */
export const isSet = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** The single schema of `items`, absent when it is absent or a list. */
export const itemsSchema = (s: JSONSchemaProps): JSONSchemaProps | undefined =>
  isSet(s.items) && !Array.isArray(s.items) ? s.items : undefined;

/** The list form of `items` (JSONSchemaPropsOrArray's JSONSchemas). */
export const itemsList = (s: JSONSchemaProps): JSONSchemaProps[] => (Array.isArray(s.items) ? s.items : []);

/** The schema of `additionalProperties`, absent when it is absent or a boolean. */
export const additionalPropertiesSchema = (s: JSONSchemaProps): JSONSchemaProps | undefined =>
  isSet(s.additionalProperties) && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;

/** The named schemas of a map-valued keyword (properties, definitions, patternProperties). */
export const schemaEntries = (map: Record<string, JSONSchemaProps> | null | undefined): [string, JSONSchemaProps][] =>
  isSet(map) ? Object.entries(map) : [];

export const hasEntries = (map: Record<string, unknown> | null | undefined): boolean => isSet(map) && Object.keys(map).length > 0;

/** The fields of a resource that are its type and object metadata. */
export const metaFields: ReadonlySet<string> = new Set(['metadata', 'kind', 'apiVersion']);

/** Whether the schema or any schema inside it satisfies `predicate` (upstream's SchemaHas). */
export function schemaHas(s: JSONSchemaProps | null | undefined, predicate: (s: JSONSchemaProps) => boolean): boolean {
  if (!isSet(s)) return false;
  if (predicate(s)) return true;
  const children: (JSONSchemaProps | undefined)[] = [
    itemsSchema(s),
    ...itemsList(s),
    ...(s.allOf ?? []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    s.not ?? undefined,
    ...schemaEntries(s.properties).map(([, p]) => p),
    additionalPropertiesSchema(s),
    ...schemaEntries(s.patternProperties).map(([, p]) => p),
    isSet(s.additionalItems) && typeof s.additionalItems === 'object' ? s.additionalItems : undefined,
    ...schemaEntries(s.definitions).map(([, p]) => p),
    ...Object.values(s.dependencies ?? {}).map((d) => (Array.isArray(d) ? undefined : d)),
  ];
  return children.some((child) => schemaHas(child, predicate));
}

/** Equality of decoded JSON values (reflect.DeepEqual over what encoding/json produces). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => jsonEqual(v, other[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export const deepCopy = <T extends JsonValue>(value: T): T => structuredClone(value);

export const isJsonObject = (value: unknown): value is { [key: string]: JsonValue } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
