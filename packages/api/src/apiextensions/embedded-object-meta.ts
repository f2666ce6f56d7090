// The type and object metadata of embedded resources (and of the resource root) as upstream's
// schema/objectmeta Coerce checks them: a custom resource's metadata is the server's ObjectMeta, so
// a value there must decode as ObjectMeta would (Go's encoding/json and its messages). The checks of
// their content (apiVersion, kind, ObjectMeta's rules) are schema/embedded.ts's.
import { goQuote, invalid, type FieldError } from '@plat/apimachinery';
import { childOf, indexOf, keyOf, type OptionalPath } from './schema/field-path.js';
import { badValue } from './schema/go-format.js';
import { additionalPropertiesSchema, isJsonObject } from './schema-props.js';
import type { JSONSchemaProps, JsonValue } from './types.js';

type JsonObject = { [key: string]: JsonValue };

// Go's encoding/json names a JSON value by its kind in type errors.
function jsonKind(value: JsonValue): string {
  if (Array.isArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'number' ? 'number' : 'string';
}

class DecodeError {
  constructor(readonly message: string) {}
}

const typeError = (value: JsonValue, struct: string, field: string, goType: string, detail = ''): DecodeError =>
  new DecodeError(`json: cannot unmarshal ${jsonKind(value)}${detail} into Go struct field ${struct}.${field} of type ${goType}`);

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

type FieldKind = 'string' | 'int64' | 'time' | 'stringMap' | 'stringList' | 'ownerReferences' | 'managedFields';

const objectMetaFields: Record<string, FieldKind> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int64',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'int64',
  labels: 'stringMap',
  annotations: 'stringMap',
  ownerReferences: 'ownerReferences',
  finalizers: 'stringList',
  managedFields: 'managedFields',
};

const ownerReferenceFields: Record<string, 'string' | 'bool'> = {
  apiVersion: 'string',
  kind: 'string',
  name: 'string',
  uid: 'string',
  controller: 'bool',
  blockOwnerDeletion: 'bool',
};

/**
 * The first error decoding `metadata` into an ObjectMeta, as Go reports it (keys in the sorted
 * order Go marshals the map in; a bad time stops the decoding at once), or undefined.
 */
export function objectMetaDecodeError(metadata: JsonValue): string | undefined {
  if (metadata === null) return undefined;
  if (!isJsonObject(metadata)) return `json: cannot unmarshal ${jsonKind(metadata)} into Go value of type v1.ObjectMeta`;
  let first: DecodeError | undefined;
  const save = (error: DecodeError | undefined): void => void (first ??= error);
  for (const key of Object.keys(metadata).sort()) {
    const kind = objectMetaFields[key];
    const value = metadata[key]!;
    if (!kind || value === null) continue;
    if (kind === 'time') {
      const error = timeError(value, key);
      if (error) return error.message;
      continue;
    }
    save(fieldError(value, key, kind));
  }
  return first?.message;
}

function timeError(value: JsonValue, field: string): DecodeError | undefined {
  if (typeof value !== 'string') return typeError(value, 'ObjectMeta', field, 'string');
  if (rfc3339.test(value) && !Number.isNaN(Date.parse(value))) return undefined;
  return new DecodeError(`parsing time ${goQuote(value)} as "2006-01-02T15:04:05Z07:00": cannot parse ${goQuote(value)} as "2006"`);
}

function fieldError(value: JsonValue, field: string, kind: FieldKind): DecodeError | undefined {
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? undefined : typeError(value, 'ObjectMeta', field, 'string');
    case 'int64':
      if (typeof value !== 'number') return typeError(value, 'ObjectMeta', field, 'int64');
      return Number.isInteger(value) ? undefined : typeError(value, 'ObjectMeta', field, 'int64', ` ${value}`);
    case 'stringMap': {
      if (!isJsonObject(value)) return typeError(value, 'ObjectMeta', field, 'map[string]string');
      const bad = Object.keys(value)
        .sort()
        .find((k) => value[k] !== null && typeof value[k] !== 'string');
      return bad === undefined ? undefined : typeError(value[bad]!, 'ObjectMeta', field, 'string');
    }
    case 'stringList': {
      if (!Array.isArray(value)) return typeError(value, 'ObjectMeta', field, '[]string');
      const bad = value.find((v) => v !== null && typeof v !== 'string');
      return bad === undefined ? undefined : typeError(bad, 'ObjectMeta', field, 'string');
    }
    case 'ownerReferences': {
      if (!Array.isArray(value)) return typeError(value, 'ObjectMeta', field, '[]v1.OwnerReference');
      for (const ref of value) {
        if (ref === null) continue;
        if (!isJsonObject(ref)) return typeError(ref, 'ObjectMeta', field, 'v1.OwnerReference');
        for (const key of Object.keys(ref).sort()) {
          const type = ownerReferenceFields[key];
          const v = ref[key]!;
          if (!type || v === null) continue;
          if (type === 'string' && typeof v !== 'string') return typeError(v, 'OwnerReference', `${field}.${key}`, 'string');
          if (type === 'bool' && typeof v !== 'boolean') return typeError(v, 'OwnerReference', `${field}.${key}`, 'bool');
        }
      }
      return undefined;
    }
    case 'managedFields': {
      if (!Array.isArray(value)) return typeError(value, 'ObjectMeta', field, '[]v1.ManagedFieldsEntry');
      const bad = value.find((v) => v !== null && !isJsonObject(v));
      return bad === undefined ? undefined : typeError(bad, 'ObjectMeta', field, 'v1.ManagedFieldsEntry');
    }
    default:
      return undefined;
  }
}

const managedFieldsEntryFields = new Set(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);

/** Go decodes a null element of a map or list of strings as the empty string. */
const stringOrEmpty = (value: JsonValue): JsonValue => (value === null ? '' : value);

/** Keys of `object` that `known` does not name, as kjson's strict decoding reports them (`ownerReferences[0].x`). */
function unknownKeys(object: JsonObject, known: { has(key: string): boolean }, prefix: string, found: string[]): void {
  for (const key of Object.keys(object)) if (!known.has(key)) found.push(`${prefix}${key}`);
}

const objectMetaKeys = new Set(Object.keys(objectMetaFields));
const ownerReferenceKeys = new Set(Object.keys(ownerReferenceFields));

/** An owner reference as OwnerReference writes it: its four strings always, the two flags when set. */
function normalizedOwnerReference(ref: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of ['apiVersion', 'kind', 'name', 'uid']) out[key] = ref[key] ?? '';
  for (const key of ['controller', 'blockOwnerDeletion']) if (ref[key] !== undefined && ref[key] !== null) out[key] = ref[key]!;
  return out;
}

/** A managedFields entry as ManagedFieldsEntry writes it: known fields only, empty ones left out. */
function normalizedManagedFieldsEntry(entry: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of managedFieldsEntryFields) {
    const value = entry[key];
    if (value !== undefined && value !== null && value !== '') out[key] = value;
  }
  return out;
}

/**
 * `metadata` (known to decode) as ObjectMeta writes it back: known fields only, empty ones left
 * out, times in UTC, nulls inside maps and lists as Go decodes them. The fields a strict decoder
 * does not know are added to `unknown` (`foo`, `ownerReferences[0].bar`).
 */
function normalizedObjectMeta(metadata: JsonObject, unknown: string[]): JsonObject {
  unknownKeys(metadata, objectMetaKeys, '', unknown);
  const out: JsonObject = {};
  for (const [key, kind] of Object.entries(objectMetaFields)) {
    const value = metadata[key];
    if (value === undefined || value === null) continue;
    if (kind === 'time') out[key] = new Date(value as string).toISOString().replace(/\.\d+Z$/, 'Z');
    else if (kind === 'string' && value === '') continue;
    else if (key === 'generation' && value === 0) continue;
    else if ((kind === 'stringMap' && Object.keys(value as JsonObject).length === 0) || (Array.isArray(value) && value.length === 0)) continue;
    else if (kind === 'stringMap') out[key] = Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, stringOrEmpty(v)]));
    else if (kind === 'stringList') out[key] = (value as JsonValue[]).map(stringOrEmpty);
    else if (kind === 'ownerReferences') {
      out[key] = (value as (JsonObject | null)[]).map((ref, i) => {
        if (ref === null) return normalizedOwnerReference({});
        unknownKeys(ref, ownerReferenceKeys, `ownerReferences[${i}].`, unknown);
        return normalizedOwnerReference(ref);
      });
    } else if (kind === 'managedFields') {
      out[key] = (value as (JsonObject | null)[]).map((entry, i) => {
        if (entry === null) return {};
        unknownKeys(entry, managedFieldsEntryFields, `managedFields[${i}].`, unknown);
        return normalizedManagedFieldsEntry(entry);
      });
    } else out[key] = value;
  }
  return out;
}

const isEmbedded = (s: JSONSchemaProps, forceEmbedded: boolean): boolean => forceEmbedded || s['x-kubernetes-embedded-resource'] === true;

/**
 * Upstream's objectmeta.Coerce without dropping: apiVersion and kind must be strings and metadata
 * must decode as ObjectMeta; metadata is rewritten as ObjectMeta writes it. The first problem. The
 * paths of the metadata fields ObjectMeta does not know, dropped by the rewrite, are added to
 * `unknownFields` (`spec.template.metadata.foo`), as upstream's ReturnUnknownFieldPaths gives them.
 */
export function coerceEmbeddedMeta(
  path: OptionalPath,
  x: JsonValue,
  s: JSONSchemaProps | undefined,
  isResourceRoot: boolean,
  unknownFields: string[] = [],
): FieldError | undefined {
  if (!s) return undefined;
  if (Array.isArray(x)) {
    const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
    for (let i = 0; i < x.length; i++) {
      const error = coerceEmbeddedMeta(indexOf(path, i), x[i]!, items, false, unknownFields);
      if (error) return error;
    }
    return undefined;
  }
  if (!isJsonObject(x)) return undefined;
  const embedded = isEmbedded(s, isResourceRoot);
  for (const key of Object.keys(x)) {
    const value = x[key]!;
    if (embedded) {
      if ((key === 'apiVersion' || key === 'kind') && typeof value !== 'string') return invalid(childOf(path, key), badValue(value), 'must be a string');
      if (key === 'metadata') {
        const problem = objectMetaDecodeError(value);
        if (problem) return invalid(childOf(path, 'metadata'), badValue(value), problem);
        if (isJsonObject(value)) {
          const unknown: string[] = [];
          x.metadata = normalizedObjectMeta(value, unknown);
          const prefix = childOf(path, 'metadata').toString();
          unknownFields.push(...unknown.map((field) => `${prefix}.${field}`));
        } else x.metadata = {}; // null decodes as an empty ObjectMeta, written back as {}
      }
    }
    const property = s.properties?.[key];
    const additional = additionalPropertiesSchema(s);
    const next = x[key];
    if (next === undefined) continue;
    const error = property
      ? coerceEmbeddedMeta(childOf(path, key), next, property, false, unknownFields)
      : additional
        ? coerceEmbeddedMeta(keyOf(path, key), next, additional, false, unknownFields)
        : undefined;
    if (error) return error;
  }
  return undefined;
}

/**
 * A request's custom object after pruning, as upstream's decoder coerces it
 * (unstructuredSchemaCoercer.apply): every embedded resource's type meta and metadata, the root's
 * being the store's ObjectMeta. `error` is the first problem as Go's field.Error prints it (the
 * request's 400); `unknownFields`, sorted, the metadata fields ObjectMeta does not know.
 */
export function coerceEmbeddedResources(schema: JSONSchemaProps, object: JsonValue): { error?: string; unknownFields: string[] } {
  const unknownFields: string[] = [];
  const error = coerceEmbeddedMeta(undefined, object, schema, false, unknownFields);
  return { ...(error && { error: error.toString() }), unknownFields: unknownFields.sort() };
}
