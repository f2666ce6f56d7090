// The objects a schema marks x-kubernetes-embedded-resource: apiVersion and kind required and well
// formed, metadata valid ObjectMeta (upstream's schema/objectmeta Validate). The root object is not
// one of them: its type meta and metadata are the store's.
import { FieldError, invalid, isDNS1035Label, nameIsPathSegment, required, validateObjectMeta, type ObjectMetaFields } from '@plat/apimachinery';
import { objectMetaDecodeError } from '../embedded-object-meta.js';
import type { JSONSchemaProps, JsonValue } from '../types.js';
import { badValue } from './go-format.js';
import { childOf, indexOf, keyOf, type OptionalPath } from './field-path.js';

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Upstream's ParseGroupVersion: at most one slash. */
function groupVersionError(apiVersion: string): string | undefined {
  return apiVersion.split('/').length > 2 ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

function validateEmbedded(path: OptionalPath, object: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  if (!Object.hasOwn(object, 'apiVersion')) errors.push(required(childOf(path, 'apiVersion'), 'must not be empty'));
  if (!Object.hasOwn(object, 'kind')) errors.push(required(childOf(path, 'kind'), 'must not be empty'));
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion') {
      const at = childOf(path, key);
      if (typeof value !== 'string') errors.push(invalid(at, badValue(value), 'must be a string'));
      else if (!value) errors.push(invalid(at, value, 'must not be empty'));
      else {
        const problem = groupVersionError(value);
        if (problem) errors.push(invalid(at, value, problem));
      }
    } else if (key === 'kind') {
      const at = childOf(path, key);
      if (typeof value !== 'string') errors.push(invalid(at, badValue(value), 'must be a string'));
      else if (!value) errors.push(invalid(at, value, 'must not be empty'));
      else {
        const problems = isDNS1035Label(value.toLowerCase());
        if (problems.length) errors.push(invalid(at, value, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
      }
    } else if (key === 'metadata') {
      const at = childOf(path, key);
      // Upstream decodes it as ObjectMeta first: a value that does not decode is that error alone.
      // Decoding refuses such values in a request; a schema's defaults reach here unchecked.
      const problem = objectMetaDecodeError(value as JsonValue);
      if (problem) {
        errors.push(invalid(at, badValue(value), problem));
        continue;
      }
      const meta = asObject(value);
      if (!meta) continue;
      const fields = meta as ObjectMetaFields;
      // Upstream fills in a name so that a missing one is no error; the rest is ObjectMeta's validation.
      const named = { ...fields, name: fields.name || 'fakename' };
      errors.push(...validateObjectMeta(named, { namespaced: Boolean(fields.namespace), validateName: nameIsPathSegment }, at));
    }
  }
  return errors;
}

function walk(path: OptionalPath, value: unknown, schema: JSONSchemaProps | undefined): FieldError[] {
  if (!schema) return [];
  const errors: FieldError[] = [];
  if (Array.isArray(value)) {
    const items = schema.items && !Array.isArray(schema.items) ? schema.items : undefined;
    value.forEach((item, index) => errors.push(...walk(indexOf(path, index), item, items)));
    return errors;
  }
  const object = asObject(value);
  if (!object) return errors;
  if (schema['x-kubernetes-embedded-resource'] === true) errors.push(...validateEmbedded(path, object));
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const [key, child] of Object.entries(object)) {
    const property = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (property) errors.push(...walk(childOf(path, key), child, property));
    else if (schema.additionalProperties !== undefined) errors.push(...walk(keyOf(path, key), child, additional));
  }
  return errors;
}

/** The errors of the embedded resources inside `object` (the root itself is not checked as one). */
export function validateEmbeddedResources(schema: JSONSchemaProps, object: unknown): FieldError[] {
  return walk(undefined, object, schema);
}

/**
 * Upstream's objectmeta.Validate in full: the embedded resources of `value` at `path`, the value
 * itself one of them when `isResourceRoot` (a CRD schema's defaults are checked so).
 */
export function validateEmbeddedResourcesAt(path: OptionalPath, value: unknown, schema: JSONSchemaProps, isResourceRoot: boolean): FieldError[] {
  const object = asObject(value);
  const rootErrors = isResourceRoot && object && schema['x-kubernetes-embedded-resource'] !== true ? validateEmbedded(path, object) : [];
  return [...rootErrors, ...walk(path, value, schema)];
}
