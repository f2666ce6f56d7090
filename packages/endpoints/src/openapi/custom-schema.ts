// A custom resource's published schemas, as upstream's CRD OpenAPI builder (apiextensions-apiserver
// pkg/controller/openapi/builder) makes them from a version's openAPIV3Schema: the structural part
// of the schema, int-or-string unfolded, type meta and ObjectMeta at the root and in embedded
// resources; for Swagger 2.0 also ToStructuralOpenAPIV2's simplifications (kubectl's v2 reader
// cannot cope with unions, nullable or open objects) and no defaults, as the v2 document merges.
import type { JSONSchema } from '@plat/registry';
import type { Dialect } from './schema.js';

export interface GroupVersionKind {
  group: string;
  kind: string;
  version: string;
}

/** References into the document the schemas are published in (`{ $ref }`, in its dialect). */
export interface CustomSchemaRefs {
  objectMeta: JSONSchema;
  listMeta: JSONSchema;
  /** The custom resource itself (a list's items). */
  object: JSONSchema;
}

// Kubernetes' documentation of type meta and metadata (k8s.io/apimachinery's generated swagger
// docs), which upstream's builder sets on these properties: kubectl explain shows them.
const TYPE_META_API_VERSION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest ' +
  'internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const TYPE_META_KIND =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client ' +
  'submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const EMBEDDED_API_VERSION =
  'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND =
  'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const OBJECT_METADATA = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const API_CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

/** The keywords a structural schema keeps (apiextensions' Structural: generic, extensions, value validation). */
const STRUCTURAL_KEYWORDS = new Set([
  'description', 'type', 'title', 'default', 'nullable', 'additionalProperties', 'items', 'properties',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations',
  'format', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required',
  'allOf', 'oneOf', 'anyOf', 'not',
]);
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;
const VALID_TYPES = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);

const isObject = (value: unknown): value is JSONSchema => value !== null && typeof value === 'object' && !Array.isArray(value);
const propertiesOf = (schema: JSONSchema): Record<string, JSONSchema> | undefined =>
  isObject(schema.properties) ? (schema.properties as Record<string, JSONSchema>) : undefined;

/** Properties by name, as Go writes a map. */
const sortedProperties = (properties: Record<string, JSONSchema>): Record<string, JSONSchema> =>
  Object.fromEntries(Object.entries(properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** A schema the structural form cannot hold (tuple items, a type outside JSON's): not published, as upstream. */
class NotStructural extends Error {}

/**
 * The structural part of a CRD schema: what apiextensions' Structural keeps, with Go's zero values
 * (false, "", empty lists and maps, a null default) left out as its JSON omits them. `example`,
 * `externalDocs` and the other keywords Structural has no field for are dropped.
 */
function structural(schema: JSONSchema): JSONSchema {
  const out: JSONSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!STRUCTURAL_KEYWORDS.has(keyword) || value === null || value === undefined) continue;
    if (keyword === 'default') {
      // Any value but null is a default, false and "" included.
      out.default = structuredClone(value);
    } else if (keyword === 'additionalProperties') {
      out.additionalProperties = isObject(value) ? structural(value) : value;
    } else if (value === false || value === '' || (Array.isArray(value) && value.length === 0)) {
      continue;
    } else if (keyword === 'type') {
      if (!VALID_TYPES.has(value as string)) throw new NotStructural(`type ${String(value)}`);
      out.type = value;
    } else if (keyword === 'items') {
      if (!isObject(value)) throw new NotStructural('items is a list of schemas');
      out.items = structural(value);
    } else if (keyword === 'properties') {
      const entries = Object.entries(value as Record<string, JSONSchema>);
      if (entries.length) out.properties = sortedProperties(Object.fromEntries(entries.map(([name, child]) => [name, structural(child)])));
    } else if (keyword === 'not') {
      out.not = structural(value as JSONSchema);
    } else if ((JUNCTORS as readonly string[]).includes(keyword)) {
      out[keyword] = (value as JSONSchema[]).map(structural);
    } else {
      out[keyword] = structuredClone(value);
    }
  }
  return out;
}

/**
 * Upstream's schema Visitor: `visit` on the node, then on its items, properties and
 * additionalProperties; junctors' branches get `nested` (and their additionalProperties `visit`).
 * Each callback runs before the walk goes below the node, so a callback sees its children unchanged.
 */
function walk(schema: JSONSchema, visit: (node: JSONSchema) => void, nested?: (node: JSONSchema) => void): void {
  visit(schema);
  children(schema, (child) => walk(child, visit, nested));
  const walkNested = (node: JSONSchema): void => {
    nested?.(node);
    if (isObject(node.items)) walkNested(node.items);
    for (const child of Object.values(propertiesOf(node) ?? {})) walkNested(child);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, visit, nested);
    junctorBranches(node, walkNested);
  };
  junctorBranches(schema, walkNested);
}

function children(schema: JSONSchema, each: (child: JSONSchema) => void): void {
  if (isObject(schema.items)) each(schema.items);
  for (const child of Object.values(propertiesOf(schema) ?? {})) each(child);
  if (isObject(schema.additionalProperties)) each(schema.additionalProperties);
}

function junctorBranches(schema: JSONSchema, each: (branch: JSONSchema) => void): void {
  for (const junctor of JUNCTORS) for (const branch of (schema[junctor] as JSONSchema[] | undefined) ?? []) each(branch);
  if (isObject(schema.not)) each(schema.not);
}

const INT_OR_STRING = JSON.stringify([{ type: 'integer' }, { type: 'string' }]);

/**
 * Structural's Unfold: an x-kubernetes-int-or-string value says so in anyOf too (in front of allOf
 * when anyOf is taken), unless it already does in one of the two forms a CRD may write it.
 */
function unfoldIntOrString(schema: JSONSchema): void {
  walk(schema, (node) => {
    if (node['x-kubernetes-int-or-string'] !== true) return;
    const anyOf = node.anyOf as JSONSchema[] | undefined;
    const allOf = node.allOf as JSONSchema[] | undefined;
    if (JSON.stringify(anyOf) === INT_OR_STRING || JSON.stringify(allOf?.[0]?.anyOf) === INT_OR_STRING) return;
    const pattern = JSON.parse(INT_OR_STRING) as JSONSchema[];
    if (!anyOf) node.anyOf = pattern;
    else node.allOf = [{ anyOf: pattern }, ...(allOf ?? [])];
  });
}

/**
 * ToStructuralOpenAPIV2: what kubectl's OpenAPI v2 reader cannot take is left out. Unions go (an
 * int-or-string keeps its marker); a nullable value loses its type and structure; a value that
 * keeps unknown fields loses its structure and its object type; an array without items loses its
 * type; a nullable field is no longer required.
 */
function toStructuralV2(schema: JSONSchema): void {
  walk(schema, (node) => {
    for (const junctor of [...JUNCTORS, 'not']) delete node[junctor];
    if (node.nullable === true) {
      for (const keyword of ['type', 'nullable', 'items', 'properties']) delete node[keyword];
    }
    if (node['x-kubernetes-preserve-unknown-fields'] === true) {
      delete node.items;
      delete node.properties;
    }
    if (node.items === undefined && node.type === 'array') delete node.type;
    if (node['x-kubernetes-preserve-unknown-fields'] === true && node.type === 'object') delete node.type;
    // The children are not visited yet: their nullable is still there to be read.
    const properties = propertiesOf(node) ?? {};
    let required = (node.required as string[] | undefined)?.filter((field) => properties[field]?.nullable !== true);
    if (isObject(node.additionalProperties) && node.additionalProperties.nullable === true) required = undefined;
    if (required?.length) node.required = required;
    else delete node.required;
  });
}

/** No `default` anywhere (kube-openapi's PruneDefaults), as /openapi/v2 publishes every schema. */
function pruneDefaults(schema: JSONSchema): void {
  delete schema.default;
  children(schema, pruneDefaults);
  junctorBranches(schema, pruneDefaults);
}

/** A reference with a description beside it; OpenAPI 3.0 allows no siblings, so there it is wrapped in allOf. */
function describedRef(ref: JSONSchema, description: string, dialect: Dialect): JSONSchema {
  return dialect === 'v2' ? { description, ...ref } : { description, allOf: [ref] };
}

/**
 * An embedded resource (x-kubernetes-embedded-resource) anywhere below is given apiVersion, kind and
 * ObjectMeta, and requires kind and apiVersion; in v2 not below a value that keeps unknown fields,
 * whose properties kubectl would otherwise hold against it.
 */
function addEmbeddedProperties(schema: JSONSchema, dialect: Dialect, objectMeta: JSONSchema): void {
  children(schema, (child) => addEmbeddedProperties(child, dialect, objectMeta));
  if (dialect === 'v2' && schema['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (schema['x-kubernetes-embedded-resource'] !== true) return;
  schema.properties = sortedProperties({
    ...propertiesOf(schema),
    apiVersion: { description: EMBEDDED_API_VERSION, type: 'string' },
    kind: { description: EMBEDDED_KIND, type: 'string' },
    metadata: describedRef(objectMeta, OBJECT_METADATA, dialect),
  });
  const required = [...((schema.required as string[] | undefined) ?? [])];
  for (const field of ['kind', 'apiVersion']) if (!required.includes(field)) required.push(field);
  schema.required = required;
}

const typeMetaProperties = (): Record<string, JSONSchema> => ({
  apiVersion: { description: TYPE_META_API_VERSION, type: 'string' },
  kind: { description: TYPE_META_KIND, type: 'string' },
});

/** The structural form of a CRD schema, or undefined for one upstream would not publish (not structural). */
function structuralOrUndefined(schema: JSONSchema | undefined): JSONSchema | undefined {
  if (!schema) return undefined;
  try {
    return structural(schema);
  } catch (error) {
    if (error instanceof NotStructural) return undefined;
    throw error;
  }
}

/**
 * The published schema of a custom resource's version. Without a schema (or, in v2, when the root
 * keeps unknown fields) it is an object and nothing more: kubectl then holds no field against it.
 */
export function customResourceSchema(
  openAPIV3Schema: JSONSchema | undefined,
  dialect: Dialect,
  refs: Pick<CustomSchemaRefs, 'objectMeta'>,
  gvk: GroupVersionKind,
): JSONSchema {
  const extension = { 'x-kubernetes-group-version-kind': [{ ...gvk }] };
  const schema = structuralOrUndefined(openAPIV3Schema);
  if (!schema || (dialect === 'v2' && schema['x-kubernetes-preserve-unknown-fields'] === true)) return { type: 'object', ...extension };
  unfoldIntOrString(schema);
  if (dialect === 'v2') toStructuralV2(schema);
  // What the CRD says of apiVersion, kind and metadata is replaced: the server owns them.
  schema.properties = sortedProperties({
    ...propertiesOf(schema),
    ...typeMetaProperties(),
    metadata: describedRef(refs.objectMeta, OBJECT_METADATA, dialect),
  });
  addEmbeddedProperties(schema, dialect, refs.objectMeta);
  if (dialect === 'v2') pruneDefaults(schema);
  return { ...schema, ...extension };
}

/** The published schema of a custom resource's list kind (upstream's buildListSchema). */
export function customResourceListSchema(
  dialect: Dialect,
  refs: Pick<CustomSchemaRefs, 'listMeta' | 'object'>,
  gvk: GroupVersionKind,
  kind: string,
  plural: string,
): JSONSchema {
  return {
    description: `${gvk.kind} is a list of ${kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: typeMetaProperties().apiVersion,
      items: { description: `List of ${plural}. More info: ${API_CONVENTIONS}`, type: 'array', items: refs.object },
      kind: typeMetaProperties().kind,
      metadata: describedRef(refs.listMeta, LIST_METADATA, dialect),
    },
    'x-kubernetes-group-version-kind': [{ ...gvk }],
  };
}
