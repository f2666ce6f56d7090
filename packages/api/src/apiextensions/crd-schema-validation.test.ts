import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCustomResourceDefinition } from './crd-validation.js';
import type { CustomResourceDefinition, JSONSchemaProps, JsonValue } from './types.js';

/** A one-version CRD around the schema: its errors report at spec.validation.openAPIV3Schema. */
function crdWith(schema: JSONSchemaProps, statusEnabled = false): CustomResourceDefinition {
  return {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...(statusEnabled ? { subresources: { status: {} } } : {}) }],
      conversion: { strategy: 'None' },
    },
    status: { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] },
  };
}

const errorsOf = (schema: JSONSchemaProps, statusEnabled = false): string[] =>
  validateCustomResourceDefinition(crdWith(schema, statusEnabled), { domain: 'plat.io' }).map(String);

const P = 'spec.validation.openAPIV3Schema';
const object = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'object', properties, ...extra });
const types = 'supported values: "array", "boolean", "integer", "number", "object", "string"';
const rootFieldsMessage =
  'only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled';

interface Case {
  name: string;
  schema: JSONSchemaProps;
  status?: boolean;
  want: string[];
}

const mapList = (items: JSONSchemaProps, keys: string[] = ['key']): JSONSchemaProps => ({
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': keys,
  items,
});

const cases: Case[] = [
  // Upstream's TestValidateCustomResourceDefinitionValidation, as they apply to v1 (structural schemas required).
  {
    name: 'root type having invalid value, with status',
    schema: { type: 'string' },
    status: true,
    want: [
      `${P}.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
      `${P}.type: Invalid value: "string": must be object at the root`,
    ],
  },
  {
    name: 'non-allowed root field with status',
    schema: { type: 'object', anyOf: [{ description: 'First schema' }, { description: 'Second schema' }] },
    status: true,
    want: [
      `${P}: Invalid value: {"type":"object","anyOf":[{"description":"First schema"},{"description":"Second schema"}]}: ${rootFieldsMessage}`,
      `${P}.anyOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.anyOf[1].description: Forbidden: must be empty to be structural`,
    ],
  },
  {
    name: 'all allowed fields at the root of the schema with status',
    schema: {
      type: 'object',
      description: 'a widget',
      title: 'Widget',
      required: ['spec'],
      properties: { spec: { type: 'object' } },
      externalDocs: { url: 'https://example.com' },
      example: { spec: {} },
      'x-kubernetes-preserve-unknown-fields': true,
    },
    status: true,
    want: [],
  },
  {
    name: 'a default at the root with status',
    schema: { type: 'object', default: { apiVersion: 'example.com/v1', kind: 'Widget' } },
    status: true,
    want: [`${P}: Invalid value: {"type":"object","default":{"apiVersion":"example.com/v1","kind":"Widget"}}: ${rootFieldsMessage}`],
  },
  {
    name: 'null type',
    schema: object({ null: { type: 'null' } }),
    want: [`${P}.properties[null].type: Unsupported value: "null": ${types}`, `${P}.properties[null].type: Forbidden: type cannot be set to null, use nullable as an alternative`],
  },
  { name: 'nullable at the root', schema: { type: 'object', nullable: true }, want: [`${P}.nullable: Forbidden: nullable cannot be true at the root`] },
  {
    name: 'nullable with types',
    schema: object({
      object: { type: 'object', nullable: true },
      array: { type: 'array', nullable: true, items: { type: 'string' } },
      number: { type: 'number', nullable: true },
      string: { type: 'string', nullable: true },
    }),
    want: [],
  },
  { name: 'must be structural, but is not', schema: {}, want: [`${P}.type: Required value: must not be empty at the root`] },
  {
    name: 'require valid types: null at the root',
    schema: { type: 'null' },
    want: [
      `${P}.type: Invalid value: "null": must be object at the root`,
      `${P}.type: Unsupported value: "null": ${types}`,
      `${P}.type: Forbidden: type cannot be set to null, use nullable as an alternative`,
    ],
  },
  {
    name: 'require valid types: bogus',
    schema: { type: 'bogus' },
    want: [`${P}.type: Invalid value: "bogus": must be object at the root`, `${P}.type: Unsupported value: "bogus": ${types}`],
  },
  {
    name: 'invalid type with list type extension set',
    schema: { type: 'object', 'x-kubernetes-list-type': 'set' },
    want: [`${P}.type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`],
  },
  {
    name: 'unset type with list type extension set',
    schema: object({ a: { 'x-kubernetes-list-type': 'set', 'x-kubernetes-preserve-unknown-fields': true } }),
    want: [`${P}.properties[a].type: Required value: must be array if x-kubernetes-list-type is specified`],
  },
  {
    name: 'invalid list type extension',
    schema: object({ a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'invalid' } }),
    want: [`${P}.properties[a].x-kubernetes-list-type: Unsupported value: "invalid": supported values: "atomic", "set", "map"`],
  },
  {
    name: 'invalid list type extension with list map keys extension non-empty',
    schema: object({ a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': ['key'] } }),
    want: [`${P}.properties[a].x-kubernetes-list-type: Invalid value: "set": must be map if x-kubernetes-list-map-keys is non-empty`],
  },
  {
    name: 'unset list type extension with list map keys extension non-empty',
    schema: object({ a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-map-keys': ['key'] } }),
    want: [`${P}.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`],
  },
  {
    name: 'empty list map keys extension with list type extension map',
    schema: object({ a: { type: 'array', 'x-kubernetes-list-type': 'map' } }),
    want: [
      `${P}.properties[a].items: Required value: must be specified`,
      `${P}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${P}.properties[a].items: Required value: must have a schema if x-kubernetes-list-type is map`,
    ],
  },
  {
    name: 'multiple schema items with list type extension map',
    schema: object({ a: mapList([{ type: 'object' }, { type: 'object' }] as unknown as JSONSchemaProps) }),
    want: [
      `${P}.properties[a].items: Forbidden: items must be a schema object and not an array`,
      `${P}.properties[a].items: Invalid value: [{"type":"object"},{"type":"object"}]: must only have a single schema if x-kubernetes-list-type is map`,
    ],
  },
  {
    name: 'non object item with list type extension map',
    schema: object({ a: mapList({ type: 'string' }) }),
    want: [`${P}.properties[a].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`],
  },
  {
    name: 'items with key missing from properties with list type extension map',
    schema: object({ a: mapList({ type: 'object', properties: { a: { type: 'string' } } }) }),
    want: [`${P}.properties[a].x-kubernetes-list-map-keys: Invalid value: []string{"key"}: entries must all be names of item properties`],
  },
  {
    name: 'items with non scalar key property type with list type extension map',
    schema: object({ a: mapList({ type: 'object', required: ['key'], properties: { key: { type: 'object' } } }) }),
    want: [`${P}.properties[a].items.properties[key].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`],
  },
  {
    name: 'duplicate map keys with list type extension map',
    schema: object({ a: mapList({ type: 'object', required: ['key'], properties: { key: { type: 'string' } } }, ['key', 'key']) }),
    want: [`${P}.properties[a].x-kubernetes-list-map-keys: Invalid value: []string{"key", "key"}: must not contain duplicate entries`],
  },
  {
    name: 'allowed schema with list type extension map',
    schema: object({ a: mapList({ type: 'object', required: ['key'], properties: { key: { type: 'string' }, value: { type: 'integer' } } }) }),
    want: [],
  },
  {
    name: 'allowed list-type atomic with non-atomic items',
    schema: object({ a: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'object', properties: { b: { type: 'string' } } } } }),
    want: [],
  },
  {
    name: 'allowed list-type set with scalar and atomic map items',
    schema: object({
      a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      b: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { c: { type: 'string' } } } },
      c: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', items: { type: 'string' } } },
    }),
    want: [],
  },
  {
    name: 'invalid list-type set with non-atomic map items',
    schema: object({ a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'granular' } } }),
    want: [`${P}.properties[a].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`],
  },
  {
    name: 'invalid list-type set with non-atomic list items',
    schema: object({ a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } } }),
    want: [`${P}.properties[a].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set`],
  },
  {
    name: 'map type extension on a non-object, unset and unknown',
    schema: object({
      a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-map-type': 'granular' },
      b: { 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-preserve-unknown-fields': true },
      c: { type: 'object', 'x-kubernetes-map-type': 'invalid' },
    }),
    want: [
      `${P}.properties[a].type: Invalid value: "array": must be object if x-kubernetes-map-type is specified`,
      `${P}.properties[b].type: Required value: must be object if x-kubernetes-map-type is specified`,
      `${P}.properties[c].x-kubernetes-map-type: Unsupported value: "invalid": supported values: "atomic", "granular"`,
    ],
  },
  {
    name: 'invalid map with nullable items and a nullable key without a default',
    schema: object({ a: mapList({ type: 'object', nullable: true, properties: { key: { type: 'string', nullable: true } } }) }),
    want: [
      `${P}.properties[a].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map`,
      `${P}.properties[a].items.properties[key].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${P}.properties[a].items.properties[key].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
    ],
  },
  {
    name: 'valid map with a required key and a defaulted key',
    schema: object({ a: mapList({ type: 'object', required: ['a'], properties: { a: { type: 'string' }, b: { type: 'string', default: 'x' } } }, ['a', 'b']) }),
    want: [],
  },
  {
    name: 'invalid set with nullable items',
    schema: object({ a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', nullable: true } } }),
    want: [`${P}.properties[a].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`],
  },
  // OpenAPI keywords Kubernetes does not take.
  {
    name: 'unsupported keywords',
    schema: object({
      a: {
        type: 'object',
        id: 'a',
        $ref: '#/definitions/b',
        definitions: { b: { type: 'string' } },
        dependencies: { x: ['y'] },
        patternProperties: { '^x': { type: 'string' } },
        additionalItems: false,
        uniqueItems: true,
      },
    }),
    want: [
      `${P}.properties[a].id: Forbidden: id is not supported`,
      `${P}.properties[a].additionalItems: Forbidden: additionalItems is not supported`,
      `${P}.properties[a].patternProperties: Forbidden: patternProperties is not supported`,
      `${P}.properties[a].definitions: Forbidden: definitions is not supported`,
      `${P}.properties[a].dependencies: Forbidden: dependencies is not supported`,
      `${P}.properties[a].$ref: Forbidden: $ref is not supported`,
      `${P}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ],
  },
  {
    name: '$schema: only the conversion notices it, and says so when nothing else is wrong',
    schema: { type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' },
    want: [`${P}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`],
  },
  {
    name: 'x-kubernetes-preserve-unknown-fields false',
    schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
    want: [`${P}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`],
  },
  // additionalProperties.
  {
    name: 'additionalProperties and properties forbidden (upstream)',
    schema: object({ foo: { type: 'object', properties: { bar: { type: 'string' } }, additionalProperties: false } }),
    want: [`${P}.properties[foo].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
  },
  {
    name: 'additionalProperties without properties allowed (upstream map[string]string)',
    schema: object({ foo: { type: 'object', additionalProperties: { type: 'string' } } }),
    want: [],
  },
  {
    name: 'additionalProperties true next to properties is allowed',
    schema: object({ foo: { type: 'object', properties: { bar: { type: 'string' } }, additionalProperties: true } }),
    want: [],
  },
  {
    name: 'additionalProperties at the root and in embedded resources (upstream)',
    schema: object(
      {
        embedded1: { type: 'object', 'x-kubernetes-embedded-resource': true, additionalProperties: { type: 'string' } },
        embedded2: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, additionalProperties: { type: 'string' } },
      },
      {},
    ),
    want: [
      `${P}.properties[embedded1].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`,
      `${P}.properties[embedded1].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[embedded2].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`,
    ],
  },
  { name: 'additionalProperties at the root', schema: { type: 'object', additionalProperties: { type: 'string' } }, want: [`${P}.additionalProperties: Forbidden: must not be used at the root`] },
  // Structural schemas.
  {
    name: 'preserveUnknownFields with unstructural schema (upstream)',
    schema: { properties: { spec: { properties: { a: { type: 'string' } } }, status: { type: 'object' } } },
    want: [`${P}.properties[spec].type: Required value: must not be empty for specified object fields`, `${P}.type: Required value: must not be empty at the root`],
  },
  {
    name: 'array items need a type and arrays need items',
    schema: object({ a: { type: 'array', items: {} }, b: { type: 'array' } }),
    want: [`${P}.properties[a].items.type: Required value: must not be empty for specified array items`, `${P}.properties[b].items: Required value: must be specified`],
  },
  {
    name: 'int-or-string, both spelled-out forms',
    schema: object({
      a: { 'x-kubernetes-int-or-string': true },
      b: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      c: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+%?$' }] },
    }),
    want: [],
  },
  {
    name: 'int-or-string with other alternatives, and with preserve-unknown-fields or embedded-resource',
    schema: object({
      a: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string', description: 'a string' }] },
      b: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
      c: { type: 'object', 'x-kubernetes-int-or-string': true, 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    }),
    want: [
      `${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[1].description: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[1].type: Forbidden: must be empty to be structural`,
      `${P}.properties[b].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      `${P}.properties[c].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      `${P}.properties[c].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    ],
  },
  {
    name: 'value validation may not type or shape anything (upstream defaults in value validation)',
    schema: object({
      a: {
        type: 'number',
        not: { default: 42 },
        allOf: [{ default: 42, title: 't', nullable: true, additionalProperties: { type: 'string' } }],
        anyOf: [{ default: 42, 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-map-type': 'atomic', 'x-kubernetes-embedded-resource': true }],
        oneOf: [{ default: 42, 'x-kubernetes-int-or-string': true, 'x-kubernetes-list-map-keys': ['a'], 'x-kubernetes-preserve-unknown-fields': true }],
      },
    }),
    want: [
      `${P}.properties[a].allOf[0].additionalProperties: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].allOf[0].default: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].allOf[0].nullable: Forbidden: must be false to be structural`,
      `${P}.properties[a].allOf[0].title: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[0].default: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].anyOf[0].x-kubernetes-embedded-resource: Forbidden: must be false to be structural`,
      `${P}.properties[a].anyOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].anyOf[0].x-kubernetes-map-type: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].not.default: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].oneOf[0].default: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].oneOf[0].x-kubernetes-int-or-string: Forbidden: must be false to be structural`,
      `${P}.properties[a].oneOf[0].x-kubernetes-list-map-keys: Forbidden: must be empty to be structural`,
      `${P}.properties[a].oneOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
      // The walk after the structural check goes not, allOf, oneOf, anyOf.
      `${P}.properties[a].oneOf[0].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
      `${P}.properties[a].anyOf[0].type: Required value: must be object if x-kubernetes-map-type is specified`,
      `${P}.properties[a].anyOf[0].type: Required value: must be array if x-kubernetes-list-type is specified`,
    ],
  },
  {
    name: 'x-kubernetes-validations under oneOf, anyOf, allOf and not (upstream)',
    schema: object({
      a: {
        type: 'number',
        not: { 'x-kubernetes-validations': [{ rule: 'should be forbidden' }] },
        allOf: [{ 'x-kubernetes-validations': [{ rule: 'should be forbidden' }] }],
        anyOf: [{ 'x-kubernetes-validations': [{ rule: 'should be forbidden' }] }],
        oneOf: [{ 'x-kubernetes-validations': [{ rule: 'should be forbidden' }] }],
      },
    }),
    want: [
      `${P}.properties[a].allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${P}.properties[a].not.x-kubernetes-validations: Forbidden: must be empty to be structural`,
      `${P}.properties[a].oneOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
    ],
  },
  {
    name: 'what the junctors at the root speak of must be specified',
    schema: object({ a: { type: 'string' } }, { anyOf: [{ properties: { b: { minLength: 1 } } }, { required: ['a'] }], not: { items: { minLength: 1 } } }),
    want: [
      `${P}.items: Required value: because it is defined in ${P}.not.items`,
      `${P}.properties[b]: Required value: because it is defined in ${P}.anyOf[0].properties[b]`,
    ],
  },
  {
    name: 'patterns are Go regular expressions',
    schema: object({
      lookahead: { type: 'string', pattern: 'a(?=b)' },
      backreference: { type: 'string', pattern: '(a)\\1' },
      nested: { type: 'string', pattern: 'a**' },
      range: { type: 'string', pattern: '[z-a]' },
      paren: { type: 'string', pattern: '(abc' },
      go: { type: 'string', pattern: '(?i)^[[:alpha:]]+\\z' },
    }),
    want: [
      // Structural errors come sorted by their text, as upstream sorts them.
      `${P}.properties[backreference].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\``,
      `${P}.properties[lookahead].pattern: Invalid value: "a(?=b)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
      `${P}.properties[nested].pattern: Invalid value: "a**": must be a valid regular expression, but isn't: error parsing regexp: invalid nested repetition operator: \`**\``,
      `${P}.properties[paren].pattern: Invalid value: "(abc": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(abc\``,
      `${P}.properties[range].pattern: Invalid value: "[z-a]": must be a valid regular expression, but isn't: error parsing regexp: invalid character class range: \`z-a\``,
    ],
  },
  // Resource metadata.
  {
    name: 'metadata may only restrict name and generateName',
    schema: object({ metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 20 }, generateName: { type: 'string' } } } }),
    want: [],
  },
  {
    name: 'metadata with anything else',
    schema: object({ metadata: { type: 'object', description: 'the metadata' } }),
    want: [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  },
  {
    name: 'metadata in a value validation',
    schema: object({ a: { type: 'object', properties: { metadata: { type: 'object' } } } }, { allOf: [{ properties: { metadata: { required: ['name'] } } }] }),
    want: [`${P}.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`, `${P}.properties[metadata]: Required value: because it is defined in ${P}.allOf[0].properties[metadata]`],
  },
  {
    name: 'contradicting meta field types (upstream)',
    schema: object({
      apiVersion: { type: 'number' },
      kind: { type: 'number' },
      metadata: { type: 'number', properties: { name: { type: 'string', pattern: 'abc' }, generateName: { type: 'string', pattern: 'abc' }, generation: { type: 'integer' } } },
      valid: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object', properties: { name: { type: 'string', pattern: 'abc' }, generation: { type: 'integer', minimum: 42 } } },
        },
      },
      invalid: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { apiVersion: { type: 'number' }, kind: { type: 'number' }, metadata: { type: 'number', properties: { generation: { type: 'integer', minimum: 42 } } } },
      },
      noEmbeddedObject: { type: 'object', properties: { apiVersion: { type: 'number' }, kind: { type: 'number' }, metadata: { type: 'number' } } },
    }),
    want: [
      `${P}.properties[apiVersion].type: Invalid value: "number": must be string`,
      `${P}.properties[invalid].properties[apiVersion].type: Invalid value: "number": must be string`,
      `${P}.properties[invalid].properties[kind].type: Invalid value: "number": must be string`,
      `${P}.properties[invalid].properties[metadata].type: Invalid value: "number": must be object`,
      `${P}.properties[kind].type: Invalid value: "number": must be string`,
      `${P}.properties[metadata].type: Invalid value: "number": must be object`,
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ],
  },
  {
    name: 'x-kubernetes-embedded-resource inside resource meta (upstream)',
    schema: object({
      embedded: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        properties: {
          metadata: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
          apiVersion: { type: 'string', properties: { foo: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } },
          kind: { type: 'string', properties: { foo: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } },
        },
      },
    }),
    want: [
      `${P}.properties[embedded].properties[metadata].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
      `${P}.properties[embedded].properties[apiVersion].properties[foo].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
      `${P}.properties[embedded].properties[kind].properties[foo].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
    ],
  },
  {
    name: 'x-kubernetes-embedded-resource with pruning and empty properties (upstream)',
    schema: object({
      nil: { type: 'object', 'x-kubernetes-embedded-resource': true },
      empty: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} },
      someField: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { foo: { type: 'string' } } },
      preserve: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      untyped: { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    }),
    want: [
      `${P}.properties[empty].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[nil].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[untyped].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
    ],
  },
  // Defaults.
  {
    name: 'valid defaults (upstream defaults with enabled feature gate, structural schema)',
    schema: object({
      a: { type: 'number', default: 42.0 },
      b: { type: 'object', properties: { c: { type: 'string', default: 'foo' } }, default: { c: 'bar' } },
      d: { type: 'array', items: { type: 'integer', default: 1 }, default: [1, 2] },
      e: { 'x-kubernetes-int-or-string': true, default: '50%' },
    }),
    want: [],
  },
  {
    name: 'invalid defaults (upstream invalid defaults with enabled feature gate, structural schema)',
    schema: object({
      a: { type: 'number', default: 'abc' },
      c: { type: 'object', properties: { foo: { type: 'string' } }, default: { foo: 42.0 } },
      d: { type: 'object', properties: { good: { type: 'string' }, bad: { type: 'string' } }, default: { good: 'a', bad: 42.5 }, required: ['good'] },
      e: {
        type: 'object',
        properties: {
          preserveUnknownFields: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, default: { foo: 'bar', x: { y: 1 } } },
          nestedProperties: { type: 'object', properties: { foo: { type: 'string' } }, default: { foo: 'bar', unknown: 'x' } },
        },
      },
    }),
    want: [
      `${P}.properties[a].default: Invalid value: "string":  in body must be of type number: "string"`,
      `${P}.properties[c].default.foo: Invalid value: "integer": foo in body must be of type string: "integer"`,
      `${P}.properties[d].default.bad: Invalid value: "number": bad in body must be of type string: "number"`,
      `${P}.properties[e].properties[nestedProperties].default: Invalid value: map[string]interface {}{"foo":"bar", "unknown":"x"}: must not have unknown fields`,
    ],
  },
  {
    name: 'defaults checked against bounds, lengths, counts, enums and required fields',
    schema: object({
      i: { type: 'integer', maximum: 10, default: 12 },
      x: { type: 'number', minimum: 1.5, exclusiveMinimum: true, default: 1.5 },
      m: { type: 'integer', multipleOf: 5, default: 12 },
      s: { type: 'string', maxLength: 3, minLength: 2, enum: ['ab', 'abc'], default: 'abcdef' },
      p: { type: 'string', pattern: '^[a-z]+$', default: 'A1' },
      l: { type: 'array', items: { type: 'string' }, maxItems: 1, default: ['a', 'b'] },
      o: { type: 'object', required: ['q'], properties: { q: { type: 'string' } }, default: {} },
      n: { type: 'string', nullable: true, enum: [null, 'b'], default: 'a' },
      t: { type: 'string', default: null as unknown as JsonValue },
    }),
    want: [
      `${P}.properties[i].default: Invalid value: 12:  in body should be less than or equal to 10`,
      `${P}.properties[x].default: Invalid value: 1.5:  in body should be greater than 1.5`,
      `${P}.properties[m].default: Invalid value: 12:  in body should be a multiple of 5`,
      `${P}.properties[s].default: Too long: may not be longer than 3`,
      `${P}.properties[s].default: Unsupported value: "abcdef": supported values: "ab", "abc"`,
      `${P}.properties[p].default: Invalid value: "A1":  in body should match '^[a-z]+$'`,
      `${P}.properties[l].default: Too many: 2: must have at most 1 items`,
      `${P}.properties[o].default.q: Required value`,
      `${P}.properties[n].default: Unsupported value: "a": supported values: "null", "b"`,
    ],
  },
  {
    name: 'defaults are not allowed in top-level metadata (upstream)',
    schema: object({ metadata: { type: 'object', properties: { name: { type: 'string', default: 'foo' } }, default: { name: 'foo' } } }),
    want: [`${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`, `${P}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`],
  },
  {
    name: 'defaults inside additionalProperties of embedded metadata (upstream default inside additionalSchema)',
    schema: object({
      embedded: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { metadata: { type: 'object', properties: { annotations: { type: 'object', additionalProperties: { type: 'string', default: 'abc' } } } } },
      },
      map: { type: 'object', additionalProperties: { type: 'string', default: 'abc' } },
    }),
    want: [`${P}.properties[embedded].properties[metadata].properties[annotations].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`],
  },
  {
    name: 'defaults of embedded metadata must make valid metadata',
    schema: object({
      embedded: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          apiVersion: { type: 'string', default: 42 },
          kind: { type: 'string', default: '%' },
          metadata: { type: 'object', properties: { name: { type: 'string', default: 'a/b' }, labels: { type: 'object', additionalProperties: { type: 'string' }, default: { foo: 'x y' } } } },
        },
      },
    }),
    want: [
      `${P}.properties[embedded].properties[apiVersion].default: Invalid value: 42: must result in valid metadata: apiVersion: Invalid value: 42: must be a string`,
      `${P}.properties[embedded].properties[kind].default: Invalid value: "%": must result in valid metadata: kind: Invalid value: "%": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      `${P}.properties[embedded].properties[metadata].properties[name].default: Invalid value: "a/b": must result in valid metadata: metadata.name: Invalid value: "a/b": may not contain '/'`,
      `${P}.properties[embedded].properties[metadata].properties[labels].default: Invalid value: map[string]interface {}{"foo":"x y"}: must result in valid metadata: metadata.labels: Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
  },
  {
    name: 'defaults of embedded objects: type metadata required, metadata decoded as ObjectMeta',
    schema: object({
      missingTypeMeta: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { something: { type: 'string' } }, default: { something: 'x' } },
      wronglyTyped: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { something: { type: 'string' } }, default: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { foo: 42 } } } },
      metadataNotAnObject: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { something: { type: 'string' } }, default: { apiVersion: 'v1', kind: 'Pod', metadata: 42 } },
      badGroupVersion: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { something: { type: 'string' } }, default: { apiVersion: 'a/b/c', kind: 'Pod' } },
      allowed: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { something: { type: 'string' } },
        // Unknown fields of ObjectMeta are dropped, not pruned.
        default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', unknown: 42 } },
      },
    }),
    want: [
      `${P}.properties[missingTypeMeta].default.apiVersion: Required value: must not be empty`,
      `${P}.properties[missingTypeMeta].default.kind: Required value: must not be empty`,
      `${P}.properties[wronglyTyped].default.metadata: Invalid value: map[string]interface {}{"labels":map[string]interface {}{"foo":42}}: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string`,
      `${P}.properties[metadataNotAnObject].default.metadata: Invalid value: 42: json: cannot unmarshal number into Go value of type v1.ObjectMeta`,
      `${P}.properties[badGroupVersion].default.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
    ],
  },
  {
    name: 'unknown fields in defaults spanning embedded objects (upstream)',
    schema: object({
      'unknown-field-object-defaults': {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { something: { type: 'string' } },
        default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', unknown: 42 }, unknown: 42 },
      },
      'x-preserve-unknown-fields-unknown-field-object-defaults': {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        properties: {},
        default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', unknown: 42 }, unknown: 42 },
      },
      'x-preserve-unknown-fields-unknown-field-outside': {
        type: 'object',
        properties: { embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, properties: {} } },
        default: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', unknown: 42 }, unknown: 42 }, unknown: 42 },
      },
    }),
    want: [
      `${P}.properties[unknown-field-object-defaults].default: Invalid value: map[string]interface {}{"apiVersion":"v1", "kind":"Pod", "metadata":map[string]interface {}{"name":"foo", "unknown":42}, "unknown":42}: must not have unknown fields`,
      `${P}.properties[x-preserve-unknown-fields-unknown-field-outside].default: Invalid value: map[string]interface {}{"embedded":map[string]interface {}{"apiVersion":"v1", "kind":"Pod", "metadata":map[string]interface {}{"name":"foo", "unknown":42}, "unknown":42}, "unknown":42}: must not have unknown fields`,
    ],
  },
  // x-kubernetes-validations: the rules' shape, then the refusal.
  {
    name: 'x-kubernetes-validations rules at every level compile',
    schema: object(
      { spec: { type: 'object', properties: { size: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0' }] } } }, list: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] } }, map: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'size(self) < 5' }] } } },
      { 'x-kubernetes-validations': [{ rule: 'has(self.spec)', message: 'spec is required' }] },
    ),
    want: [],
  },
  {
    name: 'an empty x-kubernetes-validations list is fine',
    schema: { type: 'object', 'x-kubernetes-validations': [] },
    want: [],
  },
  {
    name: 'x-kubernetes-validations rules: empty, messages, reason and fieldPath (upstream)',
    schema: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: ' ' },
        { rule: 'true', message: ' ' },
        { rule: 'true', message: 'one\ntwo' },
        { rule: 'a ||\nb' },
        { rule: 'true', messageExpression: ' ', reason: 'FieldValueTooLong' as 'FieldValueInvalid', fieldPath: ' ' },
        { rule: 'true', fieldPath: '.a\n' },
      ],
    },
    want: [
      `${P}.x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      `${P}.x-kubernetes-validations[1].message: Invalid value: " ": message must be non-empty if specified`,
      `${P}.x-kubernetes-validations[2].message: Invalid value: "one\\ntwo": message must not contain line breaks`,
      `${P}.x-kubernetes-validations[3].message: Required value: message must be specified if rule contains line breaks`,
      `${P}.x-kubernetes-validations[4].messageExpression: Required value: messageExpression must be non-empty if specified`,
      `${P}.x-kubernetes-validations[4].reason: Unsupported value: "FieldValueTooLong": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${P}.x-kubernetes-validations[4].fieldPath: Invalid value: " ": fieldPath must be non-empty if specified`,
      `${P}.x-kubernetes-validations[4].fieldPath: Invalid value: " ": fieldPath must be a valid path`,
      `${P}.x-kubernetes-validations[5].fieldPath: Invalid value: ".a\\n": fieldPath must not contain line breaks`,
      `${P}.x-kubernetes-validations[5].fieldPath: Invalid value: ".a\\n": fieldPath must be a valid path`,
    ],
  },
];

for (const c of cases) {
  test(`crd schema: ${c.name}`, () => assert.deepEqual(errorsOf(c.schema, c.status), c.want));
}

test('crd schema: each version with its own schema reports under its own path', () => {
  const crd = crdWith({ type: 'object' });
  crd.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { a: {} } } } });
  assert.deepEqual(validateCustomResourceDefinition(crd, { domain: 'plat.io' }).map(String), [
    'spec.versions[1].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields',
  ]);
});

test('crd schema: the status subresource of one version restricts only that version\'s root', () => {
  const crd = crdWith({ type: 'object', minProperties: 1 });
  crd.spec.versions.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', maxProperties: 1 } }, subresources: { status: {} } });
  assert.deepEqual(validateCustomResourceDefinition(crd, { domain: 'plat.io' }).map(String), [
    `spec.versions[1].schema.openAPIV3Schema: Invalid value: {"type":"object","maxProperties":1}: ${rootFieldsMessage}`,
  ]);
});

test('crd schema: a value validator given in the options checks the defaults', () => {
  const seen: string[] = [];
  const crd = crdWith(object({ a: { type: 'string', format: 'uuid', default: 'not-a-uuid' } }));
  const errors = validateCustomResourceDefinition(crd, {
    domain: 'plat.io',
    validateValue: (path, value) => {
      seen.push(`${path.toString()}=${JSON.stringify(value)}`);
      return [];
    },
  });
  assert.deepEqual(errors, []);
  assert.deepEqual(seen, [`${P}.properties[a].default="not-a-uuid"`]);
});
