// The schema walker: for a kind's JSON schema, what a node is (struct, map, list, scalar or untyped)
// and the x-kubernetes-* markers that decide how it merges and who may own its parts.

/** A JSON schema as the kinds define it (the same shape as `@plat/registry`'s JSONSchema). */
export type JSONSchema = Record<string, unknown>;

export type ListType = 'atomic' | 'set' | 'map';

export interface SchemaNode {
  /**
   * `struct`: an object with declared `properties`; `map`: an object whose keys are data
   * (`additionalProperties: {schema}`); `untyped`: no schema (preserve-unknown-fields, `{}`), whose
   * shape is taken from the value: objects are granular maps, lists atomic, the rest scalars.
   */
  readonly kind: 'struct' | 'map' | 'list' | 'scalar' | 'untyped';
  readonly schema: JSONSchema;
  /** Replaced as a whole and owned as one field: list type atomic, or map type atomic. */
  readonly atomic: boolean;
  /** Struct fields by name. */
  readonly fields: ReadonlyMap<string, JSONSchema>;
  /** Schema of map values, list items, or a struct's undeclared fields (untyped when unknown). */
  readonly elements: JSONSchema;
  /** For lists: the effective list type (spec 4.11: patch strategy merge without a list type is a map list). */
  readonly listType: ListType | undefined;
  /** For map lists: the key fields. */
  readonly keys: readonly string[];
  /** `x-kubernetes-patch-strategy` split on commas (`merge`, `retainKeys`, `replace`). */
  readonly patchStrategies: readonly string[];
  readonly patchMergeKey: string | undefined;
}

/** The schema of a value about which nothing is known. */
export const untypedSchema: JSONSchema = Object.freeze({}) as JSONSchema;

const scalarTypes = new Set(['string', 'integer', 'number', 'boolean']);
const described = new WeakMap<JSONSchema, SchemaNode>();
const noFields: ReadonlyMap<string, JSONSchema> = new Map();

/** What `schema` describes, with its merge markers; `undefined` means untyped. */
export function describeSchema(schema: JSONSchema | undefined): SchemaNode {
  const s = schema ?? untypedSchema;
  let node = described.get(s);
  if (!node) {
    node = describe(s);
    described.set(s, node);
  }
  return node;
}

function asSchema(value: unknown): JSONSchema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JSONSchema) : undefined;
}

function describe(schema: JSONSchema): SchemaNode {
  const strategies =
    typeof schema['x-kubernetes-patch-strategy'] === 'string'
      ? (schema['x-kubernetes-patch-strategy'] as string).split(',').map((s) => s.trim()).filter(Boolean)
      : [];
  const mergeKey = typeof schema['x-kubernetes-patch-merge-key'] === 'string' ? (schema['x-kubernetes-patch-merge-key'] as string) : undefined;
  const base = {
    schema,
    atomic: false,
    fields: noFields,
    elements: untypedSchema,
    listType: undefined,
    keys: [] as readonly string[],
    patchStrategies: strategies,
    patchMergeKey: mergeKey,
  };
  const type = schema.type;
  const preserveUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true;

  const scalarUnion = Array.isArray(type) && type.length > 0 && type.every((t) => typeof t === 'string' && scalarTypes.has(t));
  if (schema['x-kubernetes-int-or-string'] === true || (typeof type === 'string' && scalarTypes.has(type)) || scalarUnion) {
    return { ...base, kind: 'scalar' };
  }
  if (type === 'array' || (type === undefined && asSchema(schema.items))) {
    const declared = schema['x-kubernetes-list-type'];
    let listType: ListType;
    let keys: readonly string[] = [];
    if (declared === 'atomic' || declared === 'set' || declared === 'map') {
      listType = declared;
      if (declared === 'map') {
        const mapKeys = schema['x-kubernetes-list-map-keys'];
        keys = Array.isArray(mapKeys) ? mapKeys.filter((k): k is string => typeof k === 'string') : mergeKey ? [mergeKey] : [];
      }
    } else if (strategies.includes('merge')) {
      // Spec 4.11 (and kube-openapi's schema conversion): merge with a key is a map list on that
      // key; merge without a key is a set.
      listType = mergeKey ? 'map' : 'set';
      keys = mergeKey ? [mergeKey] : [];
    } else {
      listType = 'atomic';
    }
    return {
      ...base,
      kind: 'list',
      atomic: listType === 'atomic',
      elements: asSchema(schema.items) ?? untypedSchema,
      listType,
      keys,
    };
  }
  const properties = asSchema(schema.properties);
  const additional = schema.additionalProperties;
  const mapAtomic = schema['x-kubernetes-map-type'] === 'atomic';
  if (type === 'object' || properties || asSchema(additional)) {
    const elements = asSchema(additional) ?? untypedSchema;
    if (properties) {
      const fields = new Map<string, JSONSchema>();
      for (const [name, child] of Object.entries(properties)) {
        const childSchema = asSchema(child);
        if (childSchema) fields.set(name, childSchema);
      }
      return { ...base, kind: 'struct', atomic: mapAtomic, fields, elements };
    }
    if (additional === false && !preserveUnknown) return { ...base, kind: 'struct', atomic: mapAtomic };
    return { ...base, kind: 'map', atomic: mapAtomic, elements };
  }
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const alternatives = [...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])];
    if (alternatives.every((alt) => typeof asSchema(alt)?.type === 'string' && scalarTypes.has(asSchema(alt)!.type as string))) {
      return { ...base, kind: 'scalar' };
    }
  }
  return { ...base, kind: 'untyped' };
}

/** The schema of field `name` of a struct or map node; undefined for an undeclared field of a closed struct. */
export function fieldSchema(node: SchemaNode, name: string): JSONSchema {
  if (node.kind === 'struct') return node.fields.get(name) ?? node.elements;
  return node.elements;
}

/**
 * Whether `name` is a field the schema does not have: a closed struct (additionalProperties false,
 * unknown fields not preserved) declares all of its fields. Such a field is dropped while decoding,
 * so it is never owned.
 */
export function isUndeclaredField(node: SchemaNode, name: string): boolean {
  return (
    node.kind === 'struct' &&
    !node.fields.has(name) &&
    node.schema.additionalProperties === false &&
    node.schema['x-kubernetes-preserve-unknown-fields'] !== true
  );
}

/** Whether `name` is a declared struct field (upstream's "named field", which owners of its children own too). */
export function isNamedField(node: SchemaNode, name: string): boolean {
  return node.kind === 'struct' && node.fields.has(name);
}

/**
 * The node at `path` below `schema`: strings step into object fields, numbers into list items.
 * Returns undefined when the path leaves the schema (a step into a scalar).
 */
export function schemaAt(schema: JSONSchema, path: readonly (string | number)[]): SchemaNode | undefined {
  let node = describeSchema(schema);
  for (const step of path) {
    if (typeof step === 'number') {
      if (node.kind === 'list') node = describeSchema(node.elements);
      else if (node.kind === 'untyped') node = describeSchema(untypedSchema);
      else return undefined;
    } else if (node.kind === 'struct' || node.kind === 'map') {
      node = describeSchema(fieldSchema(node, step));
    } else if (node.kind === 'untyped') {
      node = describeSchema(untypedSchema);
    } else {
      return undefined;
    }
  }
  return node;
}
