// A CRD version's openAPIV3Schema as the schema of the resource definition the generic store serves it
// with: upstream's structural schema completed as it prunes, defaults and publishes it. In the dialect
// of our definitions (JSON Schema 2020-12 keywords, `nullable` and the x-kubernetes-* markers):
// - the root, and every x-kubernetes-embedded-resource object, has apiVersion and kind (strings) and
//   metadata (ObjectMeta: the registry prunes it to ObjectMeta's fields, and OpenAPI publishes it as
//   the ObjectMeta reference); an embedded resource requires apiVersion and kind, as published;
// - an object that neither declares its map values nor preserves unknown fields is closed
//   (additionalProperties: false), so that the registry prunes what it does not declare, as upstream
//   prunes every such object, even one with no properties at all;
// - an int-or-string gains the anyOf of integer and string upstream publishes (its Unfold);
// - `exclusiveMaximum: true` beside `maximum: m` is `exclusiveMaximum: m` (likewise the minimum);
// - defaults are pruned as upstream's PruneDefaults prunes them;
// - what structural schemas do not keep (example, externalDocs, id, $schema) is left out.
// Validation reads the CRD's schema itself (validate.ts), where OpenAPI's own keywords mean what
// upstream's validator makes of them.
import { pruneUnknownFields, type JSONSchema } from '@plat/registry';
import { objectMetaSchema } from '../../common/object-meta-schema.js';
import type { JSONSchemaProps } from '../types.js';

const apiVersionSchema: JSONSchema = {
  type: 'string',
  description:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
};

const kindSchema: JSONSchema = {
  type: 'string',
  description:
    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
};

/** Keywords carried over as they are. */
const COPIED = [
  'description',
  'title',
  'type',
  'format',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'multipleOf',
  'minProperties',
  'maxProperties',
  'required',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
] as const;

const isIntOrStringPair = (branches: readonly JSONSchemaProps[] | undefined): boolean =>
  branches?.length === 2 &&
  JSON.stringify(branches[0]) === JSON.stringify({ type: 'integer' }) &&
  JSON.stringify(branches[1]) === JSON.stringify({ type: 'string' });

/** The keywords that constrain a value (also all that anyOf, allOf, oneOf and not may hold). */
function valueKeywords(props: JSONSchemaProps, out: JSONSchema): void {
  for (const keyword of COPIED) {
    if (props[keyword] !== undefined) out[keyword] = structuredClone(props[keyword]);
  }
  if (props.maximum !== undefined) {
    if (props.exclusiveMaximum === true) out.exclusiveMaximum = props.maximum;
    else out.maximum = props.maximum;
  }
  if (props.minimum !== undefined) {
    if (props.exclusiveMinimum === true) out.exclusiveMinimum = props.minimum;
    else out.minimum = props.minimum;
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = props[keyword];
    if (branches) out[keyword] = branches.map((branch) => convert(branch, false));
  }
  if (props.not) out.not = convert(props.not, false);
}

/** One node; `structural` is false inside anyOf, allOf, oneOf and not, which prune nothing. */
function convert(props: JSONSchemaProps, structural: boolean): JSONSchema {
  const out: JSONSchema = {};
  valueKeywords(props, out);
  if (props.default !== undefined) out.default = structuredClone(props.default);
  if (props.properties) {
    out.properties = Object.fromEntries(Object.entries(props.properties).map(([name, child]) => [name, convert(child, structural)]));
  }
  if (props.items !== undefined) {
    if (Array.isArray(props.items)) throw new Error('a list of item schemas is not structural');
    out.items = convert(props.items, structural);
  }
  if (typeof props.additionalProperties === 'object') out.additionalProperties = convert(props.additionalProperties, structural);
  else if (props.additionalProperties !== undefined) out.additionalProperties = props.additionalProperties;
  if (!structural) return out;

  if (props['x-kubernetes-int-or-string'] === true && !isIntOrStringPair(props.anyOf) && !isIntOrStringPair(props.allOf?.[0]?.anyOf)) {
    const pair: JSONSchema[] = [{ type: 'integer' }, { type: 'string' }];
    if (out.anyOf === undefined) out.anyOf = pair;
    else out.allOf = [{ anyOf: pair }, ...((out.allOf as JSONSchema[] | undefined) ?? [])];
  }
  if (props['x-kubernetes-embedded-resource'] === true) withTypeMeta(out, true);
  const preserves = props['x-kubernetes-preserve-unknown-fields'] === true;
  if (props.type === 'object' && out.additionalProperties === undefined && !preserves) out.additionalProperties = false;
  return out;
}

/** Adds apiVersion, kind and metadata (ObjectMeta, shared by identity so that it is published once). */
function withTypeMeta(schema: JSONSchema, requireTypeMeta: boolean): void {
  schema.properties = {
    ...((schema.properties as Record<string, JSONSchema> | undefined) ?? {}),
    apiVersion: apiVersionSchema,
    kind: kindSchema,
    metadata: objectMetaSchema,
  };
  if (requireTypeMeta) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    schema.required = [...required, ...['kind', 'apiVersion'].filter((name) => !required.has(name))];
  }
}

/** Prunes every default below `schema` by the schema it is the default of (upstream's PruneDefaults). */
function pruneDefaults(schema: JSONSchema): void {
  if (Object.hasOwn(schema, 'default')) pruneUnknownFields(schema, schema.default);
  const children: unknown[] = [
    ...Object.values((schema.properties as Record<string, JSONSchema> | undefined) ?? {}),
    schema.items,
    schema.additionalProperties,
  ];
  for (const child of children) {
    // ObjectMeta carries no defaults; it is shared, so it is not walked.
    if (child !== null && typeof child === 'object' && child !== objectMetaSchema) pruneDefaults(child as JSONSchema);
  }
}

/**
 * The definition schema of a custom resource version whose schema is `openAPIV3Schema` (see the top of
 * this file). Throws when the schema is not structural in a way this cannot express (a list of item
 * schemas); the CRD's validation refuses such schemas first.
 */
export function structuralSchema(openAPIV3Schema: JSONSchemaProps): JSONSchema {
  const root = convert(openAPIV3Schema, true);
  root.type ??= 'object';
  withTypeMeta(root, false);
  if (root.additionalProperties === undefined && root['x-kubernetes-preserve-unknown-fields'] !== true) root.additionalProperties = false;
  pruneDefaults(root);
  return root;
}
