// Structural defaulting (upstream's schema/defaulting): a field's `default` fills it where it is
// absent (or a null its schema does not allow), in objects, list items and map values, recursively and
// into the defaults themselves; the parts a schema does not describe (preserve-unknown-fields) get
// none. Before it, nulls that are neither allowed nor defaulted are dropped (prunenulls), as decoding
// does. Both work in place on a structural schema (structural.ts), whose defaults are already pruned.
import type { JSONSchema } from '@plat/registry';

type Schema = JSONSchema | undefined;

const asSchema = (value: unknown): Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JSONSchema) : undefined;

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

const propertiesOf = (schema: Schema): Record<string, JSONSchema> | undefined => asSchema(schema?.properties) as Record<string, JSONSchema> | undefined;

const hasDefault = (schema: Schema): boolean => schema !== undefined && Object.hasOwn(schema, 'default') && schema.default !== null;

/** A null where the schema wants a value: not nullable. */
const isNonNullableNull = (value: unknown, schema: Schema): boolean => value === null && schema !== undefined && schema.nullable !== true;

/** The schema of an object's field: its property, else the schema of its map values. */
function fieldSchema(schema: Schema, field: string): Schema {
  const properties = propertiesOf(schema);
  if (properties && Object.hasOwn(properties, field)) return properties[field];
  return asSchema(schema?.additionalProperties);
}

/** A copy of a default, so that no two objects (or an object and the schema) share one. */
const copyOf = <T>(value: T): T => (value !== null && typeof value === 'object' ? structuredClone(value) : value);

/** Fills in `schema`'s defaults in `value`, in place; whether anything was filled in. */
export function applyDefaults(schema: JSONSchema, value: unknown): boolean {
  return defaultValue(value, schema);
}

function defaultValue(value: unknown, schema: Schema): boolean {
  if (!schema) return false;
  let changed = false;
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    for (let index = 0; index < value.length; index++) {
      if (isNonNullableNull(value[index], items) && hasDefault(items)) {
        value[index] = copyOf(items!.default);
        changed = true;
      }
      if (defaultValue(value[index], items)) changed = true;
    }
    return changed;
  }
  const object = asObject(value);
  if (!object) return false;
  const properties = propertiesOf(schema);
  for (const [field, property] of Object.entries(properties ?? {})) {
    if (!hasDefault(property)) continue;
    if (!Object.hasOwn(object, field) || isNonNullableNull(object[field], property)) {
      object[field] = copyOf(property.default);
      changed = true;
    }
  }
  const additional = asSchema(schema.additionalProperties);
  for (const field of Object.keys(object)) {
    if (properties && Object.hasOwn(properties, field)) {
      if (defaultValue(object[field], properties[field])) changed = true;
    } else if (additional) {
      if (isNonNullableNull(object[field], additional) && hasDefault(additional)) {
        object[field] = copyOf(additional.default);
        changed = true;
      }
      if (defaultValue(object[field], additional)) changed = true;
    }
  }
  return changed;
}

/** Drops, in place, the nulls of object fields whose schema neither allows nor defaults them; whether any was dropped. */
export function pruneNulls(schema: JSONSchema, value: unknown): boolean {
  return pruneNullsIn(value, schema);
}

function pruneNullsIn(value: unknown, schema: Schema): boolean {
  // Where the schema says nothing (preserved unknown fields), nulls are the data's own.
  if (!schema) return false;
  let changed = false;
  if (Array.isArray(value)) {
    const items = asSchema(schema?.items);
    for (const item of value) if (pruneNullsIn(item, items)) changed = true;
    return changed;
  }
  const object = asObject(value);
  if (!object) return false;
  for (const field of Object.keys(object)) {
    const child = fieldSchema(schema, field);
    if (isNonNullableNull(object[field], child) && !hasDefault(child)) {
      delete object[field];
      changed = true;
    } else if (pruneNullsIn(object[field], child)) changed = true;
  }
  return changed;
}
