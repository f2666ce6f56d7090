// A structural schema's expression types (2.8's schema-type mapping, upstream's SchemaDeclType),
// with what the cost estimate needs of each: the most elements (or string length) the data can
// have, and the fewest bytes one value takes serialized, both bounded by the request size when
// the schema sets no maximum.
import { escapeName } from './escaping.js';
import { MAX_REQUEST_SIZE_BYTES, SERIALIZED_SIZE } from './limits.js';
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  IntType,
  StringType,
  TimestampType,
  listOf,
  mapOf,
  objectType,
  type CelType,
} from './types.js';

/** The parts of an OpenAPI v3 schema (a CRD's, structural) that expressions depend on. */
export interface SchemaNode {
  type?: string;
  format?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode | SchemaNode[];
  additionalProperties?: SchemaNode | boolean;
  required?: string[];
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  default?: unknown;
  nullable?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
}

/** An expression type declared from a schema, with its size bounds. */
export interface DeclType {
  readonly type: CelType;
  /** Most list items, map entries or string length (4 bytes per rune of maxLength); 0 where not applicable. */
  readonly maxElements: number;
  readonly minSerializedSize: number;
  readonly fields?: ReadonlyMap<string, DeclType>;
  readonly elem?: DeclType;
  readonly key?: DeclType;
}

const maxRequest = MAX_REQUEST_SIZE_BYTES;
const zeroIfNegative = (n: number): number => Math.max(0, n);

export const itemsOf = (s: SchemaNode): SchemaNode | undefined => (s.items && !Array.isArray(s.items) ? s.items : undefined);
export const additionalPropertiesOf = (s: SchemaNode): SchemaNode | undefined =>
  s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;

const stringSchema: SchemaNode = { type: 'string' };

/**
 * The schema with apiVersion, kind and metadata.name/generateName declared, as every resource
 * root (and embedded resource) exposes them; only these of metadata are visible to expressions.
 */
export function withTypeAndObjectMeta(s: SchemaNode): SchemaNode {
  const p = s.properties;
  if (
    p?.kind?.type === 'string' &&
    p.apiVersion?.type === 'string' &&
    p.metadata?.type === 'object' &&
    p.metadata.properties?.name?.type === 'string' &&
    p.metadata.properties.generateName?.type === 'string'
  ) {
    return s;
  }
  return {
    ...s,
    properties: {
      ...p,
      kind: stringSchema,
      apiVersion: stringSchema,
      metadata: { type: 'object', properties: { name: stringSchema, generateName: stringSchema } },
    },
  };
}

const simple = (type: CelType, minSerializedSize: number, maxElements = 0): DeclType => ({ type, minSerializedSize, maxElements });

function stringLength(s: SchemaNode): number {
  if (s['x-kubernetes-int-or-string']) return maxRequest - 2;
  switch (s.format) {
    case 'duration':
      return SERIALIZED_SIZE.maxDurationJSON;
    case 'date':
      return SERIALIZED_SIZE.jsonDate;
    case 'date-time':
      return SERIALIZED_SIZE.maxDatetimeJSON;
    default:
      return maxRequest - 2;
  }
}

/**
 * The declared type of data under schema `s`, or undefined when expressions cannot see it (no type,
 * or items or values they cannot see). `name` names object types (in messages).
 */
export function schemaDeclType(s: SchemaNode | undefined, isResourceRoot: boolean, name = 'Object'): DeclType | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string']) return simple(DynType, 1, maxRequest - 2);
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      const items = itemsOf(s);
      if (!items) return undefined;
      const elem = schemaDeclType(items, items['x-kubernetes-embedded-resource'] === true, `${name}.@idx`);
      if (!elem) return undefined;
      const maxItems = s.maxItems !== undefined ? zeroIfNegative(s.maxItems) : Math.floor((maxRequest - 2) / (elem.minSerializedSize + 1));
      return { type: listOf(elem.type), maxElements: maxItems, minSerializedSize: 2, elem };
    }
    case 'object': {
      const additional = additionalPropertiesOf(s);
      if (additional) {
        const elem = schemaDeclType(additional, additional['x-kubernetes-embedded-resource'] === true, `${name}.@elem`);
        if (!elem) return undefined;
        const maxProperties = s.maxProperties !== undefined ? zeroIfNegative(s.maxProperties) : Math.floor((maxRequest - 2) / (elem.minSerializedSize + 6));
        return { type: mapOf(StringType, elem.type), maxElements: maxProperties, minSerializedSize: 2, elem, key: simple(StringType, SERIALIZED_SIZE.minString) };
      }
      const fields = new Map<string, DeclType>();
      const required = new Set(s.required ?? []);
      let minSerializedSize = 2;
      for (const [property, schema] of Object.entries(s.properties ?? {})) {
        const field = schemaDeclType(schema, schema['x-kubernetes-embedded-resource'] === true, `${name}.${property}`);
        if (!field) continue;
        const escaped = escapeName(property);
        if (escaped !== undefined) fields.set(escaped, field);
        // Required fields without a default are in every serialized object ({"name":value,...}).
        if (required.has(property) && schema.default === undefined) minSerializedSize += property.length + field.minSerializedSize + 4;
      }
      const type = objectType(name, new Map([...fields].map(([k, v]) => [k, v.type])));
      return { type, maxElements: 0, minSerializedSize, fields };
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return simple(BytesType, SERIALIZED_SIZE.minString, s.maxLength !== undefined ? zeroIfNegative(s.maxLength) : stringLength(s));
        case 'duration':
          return simple(DurationType, SERIALIZED_SIZE.minDurationJSON, stringLength(s));
        case 'date':
          return simple(TimestampType, SERIALIZED_SIZE.jsonDate, stringLength(s));
        case 'date-time':
          return simple(TimestampType, SERIALIZED_SIZE.minDatetimeJSON, stringLength(s));
      }
      // maxLength counts runes; sizes here are bytes, and a rune is up to 4 of them.
      return simple(StringType, SERIALIZED_SIZE.minString, s.maxLength !== undefined ? zeroIfNegative(s.maxLength) * 4 : stringLength(s));
    case 'boolean':
      return simple(BoolType, SERIALIZED_SIZE.minBool);
    case 'number':
      return simple(DoubleType, SERIALIZED_SIZE.minNumber);
    case 'integer':
      return simple(IntType, SERIALIZED_SIZE.minNumber);
  }
  return undefined;
}

/** The most times data of a schema with `minSize` can occur in one request (upstream's maxCardinality). */
export const maxCardinality = (minSize: number): number => Math.floor(MAX_REQUEST_SIZE_BYTES / (minSize + 1));

/** Sizes by path from the root declared type (the path's first element, the variable, is skipped). */
export function declTypeSizes(root: DeclType): { estimateSize(path: readonly string[]): { min: number; max: number } | undefined } {
  return {
    estimateSize(path) {
      let node: DeclType | undefined = root;
      for (const name of path.slice(1)) {
        if (name === '@items' || name === '@values') node = node.elem;
        else if (name === '@keys') node = node.key;
        else node = node.fields?.get(name);
        if (!node) return undefined;
      }
      return { min: 0, max: node.maxElements };
    },
  };
}
