// x-kubernetes-list-type set and map: no item twice in a set, no key twice in a map list (upstream's
// schema/listtype ValidateListSetsAndMaps). Each repeated item is reported once, at its second place.
import { duplicate, invalid, type FieldError } from '@plat/apimachinery';
import type { JSONSchemaProps } from '../types.js';
import { badValue, canonicalJSON } from './go-format.js';
import { childOf, indexOf, keyOf, type OptionalPath } from './field-path.js';

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The indices where a value is seen for the second time. */
function repeatedAt(values: readonly unknown[]): number[] {
  if (values.length <= 1) return [];
  const seen = new Map<string, number>();
  const repeated: number[] = [];
  values.forEach((value, index) => {
    // Scalars compare as Go compares interface values, compounds by their JSON.
    const identity = value !== null && typeof value === 'object' ? `c${canonicalJSON(value)}` : `s${typeof value}:${String(value)}`;
    const times = seen.get(identity) ?? 0;
    seen.set(identity, times + 1);
    if (times === 1) repeated.push(index);
  });
  return repeated;
}

const UNSPECIFIED = Symbol('unspecified key');

function validateMapList(path: OptionalPath, schema: JSONSchemaProps, list: readonly unknown[]): FieldError[] {
  for (const [index, item] of list.entries()) {
    if (item !== null && !asObject(item)) return [invalid(indexOf(path, index), badValue(item), 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = schema['x-kubernetes-list-map-keys'] ?? [];
  if (keyFields.length === 1) {
    const field = keyFields[0]!;
    const keys = list.map((item) => {
      const object = asObject(item);
      return object && Object.hasOwn(object, field) ? object[field] : UNSPECIFIED;
    });
    const identities = keys.map((key) => (key === UNSPECIFIED ? { unspecified: true } : { key }));
    return repeatedAt(identities).map((index) => {
      const key = keys[index];
      return duplicate(indexOf(path, index), badValue(key === UNSPECIFIED ? {} : { [field]: key }));
    });
  }
  const keys = list.map((item) => {
    const object = asObject(item) ?? {};
    const key: Record<string, unknown> = {};
    for (const field of keyFields) if (Object.hasOwn(object, field)) key[field] = object[field];
    return key;
  });
  return repeatedAt(keys).map((index) => duplicate(indexOf(path, index), badValue(keys[index])));
}

function validateList(path: OptionalPath, schema: JSONSchemaProps, list: readonly unknown[]): FieldError[] {
  const errors: FieldError[] = [];
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') {
    for (const index of repeatedAt(list)) errors.push(duplicate(indexOf(path, index), badValue(list[index])));
  } else if (listType === 'map') {
    errors.push(...validateMapList(path, schema, list));
  }
  const items = schema.items && !Array.isArray(schema.items) ? schema.items : undefined;
  if (items) list.forEach((item, index) => errors.push(...validateValue(indexOf(path, index), items, item)));
  return errors;
}

function validateValue(path: OptionalPath, schema: JSONSchemaProps, value: unknown): FieldError[] {
  if (Array.isArray(value)) return validateList(path, schema, value);
  const object = asObject(value);
  return object ? validateObject(path, schema, object) : [];
}

function validateObject(path: OptionalPath, schema: JSONSchemaProps, object: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  if (additional) for (const [key, value] of Object.entries(object)) errors.push(...validateValue(keyOf(path, key), additional, value));
  const properties = schema.properties;
  if (properties) {
    for (const [key, value] of Object.entries(object)) {
      if (Object.hasOwn(properties, key)) errors.push(...validateValue(childOf(path, key), properties[key]!, value));
    }
  }
  return errors;
}

/** The duplicates in the sets and map lists of `object`. */
export function validateListSetsAndMaps(schema: JSONSchemaProps, object: unknown): FieldError[] {
  const root = asObject(object);
  return root ? validateObject(undefined, schema, root) : [];
}
