// Decoding checks against a kind's schema: wrong types (a fatal 400), and fields the schema does
// not declare, found by position and dropped from the object as a typed decoder would drop them.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parseQuantity } from '@plat/apimachinery';
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

// Of the formats our schemas name, only a quantity is checked while decoding: upstream's typed
// decoder parses a resource.Quantity and refuses the body when it is not one. The rest are published.
const ajv = new Ajv2020({
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  formats: { quantity: { type: 'string', validate: (text: string) => !quantityError(text) }, 'date-time': true, int32: true, int64: true },
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

function walkUnknown(schema: JSONSchema, value: unknown, path: string, unknown: string[], prune: boolean): void {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return;
  const object = asObject(value);
  if (Array.isArray(value)) {
    const items = asObject(schema.items);
    if (items) value.forEach((item, index) => walkUnknown(items, item, `${path}[${index}]`, unknown, prune));
    return;
  }
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
    } else if (properties || additional === false) {
      unknown.push(child);
      if (prune) delete object[field];
    }
  }
}

/** Checks `object` against the kind's schema; with `prune`, undeclared fields are removed from it. */
export function checkFields<T extends KubeObject>(definition: ResourceDefinition<T>, object: unknown, prune: boolean): FieldCheck {
  const validate = validatorFor(definition.schema);
  validate(object);
  const typeErrors = (validate.errors ?? []).filter(isTypeError).map((error) =>
    error.keyword === 'format' && error.params.format === 'quantity'
      ? quantityError(String(valueAt(object, error.instancePath)))
      : `${fieldPath(error.instancePath) || '<root>'}: ${error.message ?? 'is invalid'}`,
  );
  const unknownFields: string[] = [];
  walkUnknown(definition.schema, object, '', unknownFields, prune);
  return { typeErrors: [...new Set(typeErrors)], unknownFields };
}
