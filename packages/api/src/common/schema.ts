// Builders for the JSON schemas of the built-in kinds: small functions so that each kind's file reads
// like upstream's OpenAPI, with every object closed (additionalProperties: false) so that an unknown
// field is reported at its own position.
import type { JSONSchema } from '@plat/registry';

/** The x-kubernetes-* keywords our schemas use: the registry's list, which its validator registers. */
export { KUBERNETES_SCHEMA_KEYWORDS as kubernetesSchemaKeywords } from '@plat/registry';

/** Formats our schemas name: OpenAPI's integer widths, RFC 3339 times, resource quantities and base64 bytes. */
export const kubernetesSchemaFormats = ['int32', 'int64', 'date-time', 'quantity', 'byte'] as const;

export const stringField = (description: string): JSONSchema => ({ type: 'string', description });

export const booleanField = (description: string): JSONSchema => ({ type: 'boolean', description });

export const integerField = (description: string, format: 'int32' | 'int64' = 'int32'): JSONSchema => ({
  type: 'integer',
  format,
  description,
});

export const timeField = (description: string): JSONSchema => ({ type: 'string', format: 'date-time', description });

/** A map of string to string, such as labels. */
export const stringMap = (description: string): JSONSchema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string' },
});

/** A list replaced as a whole by apply and strategic merge patch. */
export const atomicList = (description: string, items: JSONSchema): JSONSchema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'atomic',
});

export const atomicStringList = (description: string): JSONSchema => atomicList(description, { type: 'string' });

export interface ObjectOptions {
  required?: readonly string[];
  /** `atomic` when the object is replaced as a whole (upstream's +structType=atomic). */
  mapType?: 'atomic' | 'granular';
}

/** A closed object: only the listed properties are allowed. */
export function objectSchema(description: string, properties: Record<string, JSONSchema>, options: ObjectOptions = {}): JSONSchema {
  const schema: JSONSchema = { type: 'object', description, properties, additionalProperties: false };
  if (options.required?.length) schema.required = [...options.required];
  if (options.mapType) schema['x-kubernetes-map-type'] = options.mapType;
  return schema;
}

/**
 * A resource.Quantity: "1", "250m", "1Gi", or a bare JSON number (0.5 is 500m), as upstream's
 * decoder takes it (its OpenAPI v3 gives string or number). A string that is no quantity is refused
 * while decoding (the `quantity` format).
 */
export const quantitySchema = (description: string): JSONSchema => ({
  description,
  type: ['string', 'number'],
  format: 'quantity',
});

/** A map of resource name to quantity (upstream's ResourceList). */
export const resourceList = (description: string): JSONSchema => ({
  type: 'object',
  description,
  additionalProperties: quantitySchema('A quantity of the named resource.'),
});
