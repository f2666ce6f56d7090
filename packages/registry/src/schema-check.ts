// Decoding checks against a kind's schema: nulls and over-long number literals read as a typed
// decoder reads them (decoded-value.ts), wrong types and integers out of their range (a fatal 400),
// and fields the schema does not declare, found by position and dropped from the object as a typed
// decoder would drop them.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parseQuantity } from '@plat/apimachinery';
import { fitsIntegerFormat, integerRangeMessage, normalizeDecoded, resolveNumberLiterals } from './decoded-value.js';
import type { JSONSchema, ResourceDefinition, KubeObject } from './definition.js';

export interface FieldCheck {
  /** Type mismatches, as `path: message`; any of these makes the request a 400. */
  typeErrors: string[];
  /** Paths of undeclared fields (`spec.foo`, `rules[0].bar`), in document order. */
  unknownFields: string[];
}

/** The x-kubernetes-* schema keywords (OpenAPI extensions) a kind's schema may carry. */
export const KUBERNETES_SCHEMA_KEYWORDS = [
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-group-version-kind',
] as const;

/** Why `text` is not a quantity ('' when it is one): upstream's message, with no path, as its decoder gives it. */
function quantityError(text: string): string {
  try {
    parseQuantity(text);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

// Of the formats our schemas name, a quantity and the integer widths are checked while decoding:
// upstream's typed decoder parses a resource.Quantity, and refuses a number its int32 or int64 field
// cannot hold (int64 here: within a double's exact integers, since a rounded one must not be stored).
const ajv = new Ajv2020({
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  formats: {
    quantity: { type: 'string', validate: (text: string) => !quantityError(text) },
    'date-time': true,
    int32: { type: 'number', validate: (value: number) => fitsIntegerFormat(value, 'int32') },
    int64: { type: 'number', validate: (value: number) => fitsIntegerFormat(value, 'int64') },
  },
});
ajv.addVocabulary([...KUBERNETES_SCHEMA_KEYWORDS]);
const compiled = new WeakMap<JSONSchema, ValidateFunction>();

function validatorFor(schema: JSONSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** `/spec/rules/0/verbs` as `spec.rules[0].verbs`. */
function fieldPath(pointer: string): string {
  let path = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path ? `.${segment}` : segment;
  }
  return path;
}

/** The value at a JSON pointer (`/spec/limits/0/max/cpu`). */
function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const raw of pointer.split('/').slice(1)) {
    value = (value as Record<string, unknown> | undefined)?.[raw.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return value;
}

// Undeclared properties are reported by walkUnknown, required fields by the kind's validation.
const isTypeError = (error: ErrorObject): boolean => error.keyword !== 'additionalProperties' && error.keyword !== 'required';

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/**
 * Reports (and with `prune`, removes) the fields of `value` its schema does not declare. Below
 * `x-kubernetes-preserve-unknown-fields` undeclared fields are kept but declared ones are still
 * walked, and a preserving list's items keep their undeclared fields too (upstream's pruning).
 */
function walkUnknown(schema: JSONSchema, value: unknown, path: string, unknown: string[], prune: boolean, preserving = false): void {
  const preserve = preserving || schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (Array.isArray(value)) {
    const items = asObject(schema.items);
    if (items) value.forEach((item, index) => walkUnknown(items, item, `${path}[${index}]`, unknown, prune, preserve));
    return;
  }
  const object = asObject(value);
  if (!object) return;
  const properties = asObject(schema.properties) as Record<string, JSONSchema> | undefined;
  const additional = schema.additionalProperties;
  for (const field of Object.keys(object)) {
    const child = path ? `${path}.${field}` : field;
    const declared = properties && Object.hasOwn(properties, field) ? properties[field] : undefined;
    if (declared) {
      walkUnknown(declared, object[field], child, unknown, prune);
    } else if (asObject(additional)) {
      walkUnknown(additional as JSONSchema, object[field], child, unknown, prune);
    } else if (!preserve && (properties || additional === false)) {
      unknown.push(child);
      if (prune) delete object[field];
    }
  }
}

/**
 * Removes from `value` (in place) the fields `schema` does not declare, as decoding does, and
 * returns their paths: for values that are not decoded, such as a schema's defaults.
 */
export function pruneUnknownFields(schema: JSONSchema, value: unknown): string[] {
  const unknown: string[] = [];
  walkUnknown(schema, value, '', unknown, true);
  return unknown;
}

function typeErrorMessage(error: ErrorObject, object: unknown): string {
  const path = fieldPath(error.instancePath) || '<root>';
  if (error.keyword === 'format') {
    const value = valueAt(object, error.instancePath);
    if (error.params.format === 'quantity') return quantityError(String(value));
    if (error.params.format === 'int32' || error.params.format === 'int64') return `${path}: ${integerRangeMessage(String(value), error.params.format)}`;
  }
  return `${path}: ${error.message ?? 'is invalid'}`;
}

/**
 * Checks `object` against the kind's schema, after reading its nulls and tagged number literals
 * as a typed decoder would (in place); with `prune`, undeclared fields are removed from it.
 */
export function checkFields<T extends KubeObject>(definition: ResourceDefinition<T>, object: unknown, prune: boolean): FieldCheck {
  if (definition.unstructured) return checkUnstructured(definition, object, prune);
  const decodeErrors: string[] = [];
  normalizeDecoded(object, definition.schema, '', decodeErrors);
  const validate = validatorFor(definition.schema);
  validate(object);
  const typeErrors = [...decodeErrors, ...(validate.errors ?? []).filter(isTypeError).map((error) => typeErrorMessage(error, object))];
  const unknownFields: string[] = [];
  walkUnknown(definition.schema, object, '', unknownFields, prune);
  return { typeErrors: [...new Set(typeErrors)], unknownFields };
}

const typeMetaSchemas = new WeakMap<JSONSchema, JSONSchema>();

/**
 * An unstructured kind's object (a custom resource): as upstream decodes one, only apiVersion, kind
 * and metadata (ObjectMeta) are typed; everything else is kept as JSON gives it, nulls included,
 * for the kind's pruning and validation. Number literals a double cannot hold are read as
 * upstream's decoder reads them into an interface{}: a float64, or refused when an int64 would
 * hold them exactly and a double cannot.
 */
function checkUnstructured<T extends KubeObject>(definition: ResourceDefinition<T>, object: unknown, prune: boolean): FieldCheck {
  let schema = typeMetaSchemas.get(definition.schema);
  if (!schema) {
    const properties = (definition.schema.properties ?? {}) as Record<string, JSONSchema>;
    schema = {
      type: 'object',
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, ...(properties.metadata && { metadata: properties.metadata }) },
      // Anything else is the kind's to prune.
      additionalProperties: {},
    };
    typeMetaSchemas.set(definition.schema, schema);
  }
  const decodeErrors: string[] = [];
  const fields = asObject(object);
  if (fields) {
    const metadataSchema = asObject((schema.properties as Record<string, unknown>).metadata) as JSONSchema | undefined;
    for (const key of Object.keys(fields)) {
      if (key === 'metadata' && metadataSchema && fields.metadata !== null) fields.metadata = normalizeDecoded(fields.metadata, metadataSchema, 'metadata', decodeErrors);
      else fields[key] = resolveNumberLiterals(fields[key], key, decodeErrors);
    }
  }
  const validate = validatorFor(schema);
  validate(object);
  const typeErrors = [...decodeErrors, ...(validate.errors ?? []).filter(isTypeError).map((error) => typeErrorMessage(error, object))];
  const unknownFields: string[] = [];
  walkUnknown(schema, object, '', unknownFields, prune);
  return { typeErrors: [...new Set(typeErrors)], unknownFields };
}
