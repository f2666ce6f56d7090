// CustomResourceDefinition (apiextensions/v1) through the codec: JSONSchemaProps and its unions,
// JSON values, doubles, base64 bytes, and what reads back as upstream's JSON writes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, builtinSubresourceDefinitions } from '@plat/api';
import { PROTOBUF_PREFIX, decodeObject, encodeObject } from './codec.js';
import type { JsonObject } from './compile.js';
import { ProtobufError } from './errors.js';
import { registerProtobufKinds } from './kinds.js';
import { customResourceDefinitionSource } from './testing/crd-source.js';
import { fixtures } from './fixtures.test-support.js';

const { customResourceDefinition, listOf } = fixtures;

registerProtobufKinds([...builtinDefinitions, ...builtinSubresourceDefinitions, customResourceDefinitionSource]);

const roundTrip = (object: JsonObject): JsonObject => decodeObject(encodeObject(object));
const clone = <T>(value: T): T => structuredClone(value);

const crdWith = (openAPIV3Schema: unknown, spec: JsonObject = {}): JsonObject => ({
  kind: 'CustomResourceDefinition',
  apiVersion: 'apiextensions.plat.io/v1',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', kind: 'Widget' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    ...spec,
  },
});
const schemaOf = (crd: JsonObject): unknown =>
  ((((crd.spec as JsonObject).versions as JsonObject[])[0]!.schema as JsonObject).openAPIV3Schema);

test('round trip: a CustomResourceDefinition with a deep schema, webhook conversion and status', () => {
  const bytes = encodeObject(customResourceDefinition);
  assert.deepEqual([...bytes.subarray(0, 4)], [...PROTOBUF_PREFIX]);
  assert.deepStrictEqual(decodeObject(bytes), customResourceDefinition);
});

test('round trip: a CustomResourceDefinitionList, and an empty one keeps items: []', () => {
  for (const count of [3, 0]) {
    const list = listOf(customResourceDefinition, count, { resourceVersion: '77' });
    assert.deepStrictEqual(roundTrip(list), list);
  }
});

test('the k8s.io group maps to the same message', () => {
  const k8s = { ...clone(customResourceDefinition), apiVersion: 'apiextensions.k8s.io/v1' };
  assert.deepStrictEqual(roundTrip(k8s), k8s);
});

// [name, schema written, schema read back (undefined: as written)], per upstream's types_jsonschema.go
// and marshal.go.
const schemas: [string, unknown, unknown?][] = [
  ['additionalProperties true', { type: 'object', additionalProperties: true }],
  ['additionalProperties false', { type: 'object', additionalProperties: false }],
  ['additionalProperties a schema', { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } }],
  ['additionalProperties an empty schema', { additionalProperties: {} }],
  ['additionalItems true, false and a schema', { items: [{}], allOf: [{ additionalItems: true }, { additionalItems: false }, { additionalItems: { type: 'string' } }] }],
  ['items a schema', { type: 'array', items: { type: 'string' } }],
  ['items a list of schemas', { type: 'array', items: [{ type: 'string' }, { type: 'array', items: [{ type: 'integer' }] }] }],
  // JSONSchemaPropsOrArray with neither: Go writes an empty message and reads it back as null.
  ['items an empty list reads back null', { type: 'array', items: [] }, { type: 'array', items: null }],
  [
    'defaults of every JSON type',
    {
      properties: {
        s: { default: 'text' },
        empty: { default: '' },
        zero: { default: 0 },
        int: { default: -42 },
        big: { default: Number.MAX_SAFE_INTEGER },
        float: { default: 1.5e-7 },
        yes: { default: true },
        no: { default: false },
        object: { default: { a: { b: [1, null, 'x'] }, 'ü ✓': '"quoted"' } },
        emptyObject: { default: {} },
        list: { default: [1, 'two', false, null, {}] },
        emptyList: { default: [] },
      },
    },
  ],
  // default and example are *JSON: a null is a nil pointer, which Go omits.
  ['a null default or example is dropped', { type: 'string', default: null, example: null }, { type: 'string' }],
  ['examples of every JSON type', { allOf: [{ example: 'x' }, { example: 0 }, { example: false }, { example: { a: 1 } }, { example: [] }] }],
  // enum members are JSON values, not pointers: a null member is an empty message, read back null.
  ['enum members of every JSON type, null among them', { enum: [null, '', 0, -1.25, false, true, {}, [], { k: ['v'] }, 'ünïcödé'] }],
  ['pointer numbers keep their zero values', { maximum: 0, minimum: 0, multipleOf: 0, maxLength: 0, minLength: 0, maxItems: 0, minItems: 0, maxProperties: 0, minProperties: 0 }],
  ['doubles keep their exact value', { allOf: [{ maximum: 1e308 }, { minimum: -5e-324 }, { multipleOf: 0.1 }, { maximum: 2 ** 53 + 2 }, { minimum: -1 / 3 }] }],
  ['int64 bounds beyond 32 bits', { maxLength: 2 ** 40, maxItems: Number.MAX_SAFE_INTEGER, minProperties: -1 }],
  [
    'non-pointer zero values are dropped, as omitempty drops them',
    { id: '', $schema: '', description: '', type: '', format: '', title: '', pattern: '', exclusiveMaximum: false, exclusiveMinimum: false, uniqueItems: false, nullable: false, 'x-kubernetes-embedded-resource': false, 'x-kubernetes-int-or-string': false },
    {},
  ],
  [
    'empty lists and maps are dropped',
    { required: [], enum: [], allOf: [], oneOf: [], anyOf: [], properties: {}, patternProperties: {}, dependencies: {}, definitions: {}, 'x-kubernetes-list-map-keys': [], 'x-kubernetes-validations': [] },
    {},
  ],
  ['x-kubernetes-preserve-unknown-fields false is kept (*bool)', { type: 'object', 'x-kubernetes-preserve-unknown-fields': false }],
  ['x-kubernetes-list-type, map-type and $ref keep an empty string (*string)', { $ref: '', 'x-kubernetes-list-type': '', 'x-kubernetes-map-type': '' }],
  ['the x-kubernetes markers and $-names', { $schema: 'http://json-schema.org/draft-04/schema#', $ref: '#/definitions/a', id: 'a', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-int-or-string': true, 'x-kubernetes-list-map-keys': ['a', 'b'], 'x-kubernetes-list-type': 'map', 'x-kubernetes-map-type': 'granular', 'x-kubernetes-preserve-unknown-fields': true }],
  [
    'dependencies: a list of properties, a schema, and the empty and null members Go reads back null',
    { dependencies: { a: ['b', 'c'], b: { required: ['a'] }, c: [], d: null } },
    { dependencies: { a: ['b', 'c'], b: { required: ['a'] }, c: null, d: null } },
  ],
  ['definitions, patternProperties, allOf, oneOf, anyOf, not', { definitions: { a: { type: 'string' } }, patternProperties: { '^x-': { not: { type: 'integer' } } }, allOf: [{}], oneOf: [{ required: ['a'] }, { required: ['b'] }], anyOf: [{ type: 'integer' }, { type: 'string' }], not: {} }],
  ['keys JSONSchemaProps does not have are dropped, an own __proto__ among them', JSON.parse('{"type":"string","x-kubernetes-unknown":true,"__proto__":{"type":"integer"},"Type":"x"}'), { type: 'string' }],
  ['externalDocs, empty or not', { allOf: [{ externalDocs: {} }, { externalDocs: { description: 'd', url: 'https://example.com' } }] }],
  [
    'validation rules: rule written even empty, reason kept empty (a pointer), the rest omitempty',
    { 'x-kubernetes-validations': [{ rule: '', message: '', messageExpression: '', reason: '', fieldPath: '' }, { rule: 'self > 0', reason: 'FieldValueForbidden' }] },
    { 'x-kubernetes-validations': [{ rule: '', reason: '' }, { rule: 'self > 0', reason: 'FieldValueForbidden' }] },
  ],
];

for (const [name, written, readBack] of schemas) {
  test(`JSONSchemaProps: ${name}`, () => {
    assert.deepStrictEqual(schemaOf(roundTrip(crdWith(written))), readBack === undefined ? written : readBack);
  });
}

test('JSONSchemaProps nested deep (properties of items of additionalProperties of ...) round-trips', () => {
  let schema: JsonObject = { type: 'string', default: 'leaf' };
  for (let depth = 0; depth < 40; depth++) {
    const wrap = depth % 3;
    schema = wrap === 0 ? { type: 'object', properties: { [`p${depth}`]: schema } } : wrap === 1 ? { type: 'array', items: schema } : { type: 'object', additionalProperties: schema };
  }
  assert.deepStrictEqual(schemaOf(roundTrip(crdWith(schema))), schema);
});

// The CRD's own messages: their rules come from the kind's definition (testing/crd-source.ts).
test('CustomResourceDefinition fields Go writes without omitempty read back with their zero values; pointers keep theirs', () => {
  const written = crdWith(
    { type: 'object' },
    {
      versions: [
        {
          name: 'v1',
          served: false,
          storage: false,
          deprecated: false,
          deprecationWarning: '',
          subresources: { status: {}, scale: { specReplicasPath: '', statusReplicasPath: '', labelSelectorPath: '' } },
          additionalPrinterColumns: [{ name: '', type: '', format: '', description: '', priority: 0, jsonPath: '' }],
        },
      ],
      conversion: { strategy: '', webhook: { clientConfig: { url: '', service: { namespace: '', name: '', path: '', port: 0 }, caBundle: '' }, conversionReviewVersions: [] } },
      preserveUnknownFields: false,
    },
  );
  const status = { conditions: [{ type: '', status: '', reason: '', message: '' }], acceptedNames: { plural: '', singular: '', kind: '', listKind: '' }, storedVersions: [] };
  assert.deepStrictEqual(roundTrip({ ...written, status }), {
    ...written,
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: false,
          storage: false,
          deprecationWarning: '',
          subresources: { status: {}, scale: { specReplicasPath: '', statusReplicasPath: '', labelSelectorPath: '' } },
          additionalPrinterColumns: [{ name: '', type: '', jsonPath: '' }],
        },
      ],
      conversion: { strategy: '', webhook: { clientConfig: { url: '', service: { namespace: '', name: '', path: '', port: 0 } }, conversionReviewVersions: [] } },
    },
    // conditions and storedVersions have no omitempty upstream, but its OpenAPI does not require
    // them (+optional): an empty list is dropped here where Go writes null.
    status: { conditions: [{ type: '', status: '' }], acceptedNames: { plural: '', kind: '' } },
  });
});

test('caBundle is base64 in the JSON form: line breaks are dropped, as Go decodes it', () => {
  const clientConfig = (caBundle: string): JsonObject => ({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://convert.example.com', caBundle }, conversionReviewVersions: ['v1'] } } });
  const decoded = roundTrip(crdWith({}, clientConfig('AAEC\n/wAA\r\nAA==')));
  assert.deepStrictEqual(decoded, crdWith({}, clientConfig('AAEC/wAAAA==')));
});

const invalidCases: [string, JsonObject, string][] = [
  ['additionalProperties neither boolean nor schema', crdWith({ properties: { spec: { additionalProperties: 'yes' } } }), 'properties[spec].additionalProperties: expected boolean or object, got string'],
  ['additionalItems a number, inside allOf', crdWith({ allOf: [{ additionalItems: 1 }] }), 'allOf[0].additionalItems: expected boolean or object, got number'],
  ['a field of the schema in additionalProperties', crdWith({ additionalProperties: { type: 5 } }), 'additionalProperties.type: expected string, got number'],
  ['items neither schema nor list', crdWith({ items: 5 }), 'items: expected object or array of objects, got number'],
  ['items a list with a string', crdWith({ items: [{}, 'x'] }), 'items[1]: expected object, got string'],
  ['a field of the second schema in items', crdWith({ items: [{}, { properties: { a: { minimum: '0' } } }] }), 'items[1].properties[a].minimum: expected number, got string'],
  ['dependencies with a number in the list', crdWith({ dependencies: { a: ['b', 1] } }), 'dependencies[a][1]: expected string, got number'],
  ['dependencies with a string', crdWith({ dependencies: { a: 'b' } }), 'dependencies[a]: expected object or array of strings, got string'],
  ['maximum a string', crdWith({ maximum: '1' }), 'maximum: expected number, got string'],
  ['maxLength a fraction', crdWith({ maxLength: 1.5 }), 'maxLength: expected integer, got number'],
  ['x-kubernetes-preserve-unknown-fields a string', crdWith({ 'x-kubernetes-preserve-unknown-fields': 'true' }), 'x-kubernetes-preserve-unknown-fields: expected boolean, got string'],
  ['a validation rule that is not text', crdWith({ 'x-kubernetes-validations': [{ rule: 1 }] }), 'x-kubernetes-validations[0].rule: expected string, got number'],
  ['openAPIV3Schema a list', crdWith([{ type: 'object' }]), 'openAPIV3Schema: expected object, got array'],
  [
    'caBundle not base64',
    crdWith({}, { conversion: { strategy: 'Webhook', webhook: { clientConfig: { caBundle: 'not base64!' }, conversionReviewVersions: ['v1'] } } }),
    'spec.conversion.webhook.clientConfig.caBundle: not base64 (standard alphabet, padded)',
  ],
  [
    'caBundle unpadded',
    crdWith({}, { conversion: { strategy: 'Webhook', webhook: { clientConfig: { caBundle: 'AAE' }, conversionReviewVersions: ['v1'] } } }),
    'spec.conversion.webhook.clientConfig.caBundle: not base64 (standard alphabet, padded)',
  ],
  [
    'caBundle a list of bytes',
    crdWith({}, { conversion: { strategy: 'Webhook', webhook: { clientConfig: { caBundle: [1, 2] }, conversionReviewVersions: ['v1'] } } }),
    'spec.conversion.webhook.clientConfig.caBundle: expected a base64 string, got array',
  ],
];

for (const [name, object, message] of invalidCases) {
  test(`InvalidValue: ${name}`, () => {
    const path = message.startsWith('spec.') ? message : `spec.versions[0].schema.openAPIV3Schema${message.startsWith('openAPIV3Schema') ? message.slice('openAPIV3Schema'.length) : `.${message}`}`;
    assert.throws(
      () => encodeObject(object),
      (err: unknown) => err instanceof ProtobufError && err.reason === 'InvalidValue' && err.message === `CustomResourceDefinition.${path}`,
      `CustomResourceDefinition.${path}`,
    );
  });
}

// ---- malformed bytes: a CRD around hand-made JSONSchemaProps bytes ----

const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  return [...out, n];
};
const field = (number: number, bytes: number[] | string): number[] => {
  const body = typeof bytes === 'string' ? [...Buffer.from(bytes)] : bytes;
  return [...varint((number << 3) | 2), ...varint(body.length), ...body];
};

/** Prefix, Unknown, and a CRD whose only version's openAPIV3Schema is these bytes. */
function crdAround(schema: number[]): Uint8Array {
  const version = field(4, field(1, schema));
  const crd = [...field(1, field(1, 'w.example.com')), ...field(2, field(7, version))];
  const typeMeta = [...field(1, 'apiextensions.k8s.io/v1'), ...field(2, 'CustomResourceDefinition')];
  return new Uint8Array([...PROTOBUF_PREFIX, ...field(1, typeMeta), ...field(2, crd)]);
}

test('hand-made schema bytes read back (the malformed cases below differ from it in one place)', () => {
  const schema = [...field(5, 'object'), ...field(8, field(1, '{"a":1}')), 0x49, ...new Array<number>(8).fill(0), ...field(30, [0x08, 0x01])];
  const spec = (decodeObject(crdAround(schema)).spec as JsonObject).versions as JsonObject[];
  assert.deepStrictEqual(spec[0]!.schema, { openAPIV3Schema: { type: 'object', default: { a: 1 }, maximum: 0, additionalProperties: true } });
});

const malformed: [string, number[]][] = [
  ['default whose raw is not JSON text', field(8, field(1, '{"a":'))],
  ['an enum member whose raw is not JSON text', field(20, field(1, 'tru'))],
  ['maximum cut short (a double is 8 bytes)', [0x49, 0, 0, 0]],
  ['additionalProperties whose schema runs past its union', field(30, [0x08, 0x01, 0x12, 0x05, 0x2a, 0x01])],
  ['items whose list member runs past its union', field(24, [0x12, 0x09, 0x2a, 0x01, 0x78])],
  ['a dependency property that runs past its union', field(32, [...field(1, 'a'), 0x12, 0x04, 0x12, 0x09, 0x61, 0x62])],
  ['a truncated tag', [0xc2]],
];

for (const [name, schema] of malformed) {
  test(`Malformed: ${name}`, () => {
    assert.throws(() => decodeObject(crdAround(schema)), (err: unknown) => err instanceof ProtobufError && err.reason === 'Malformed', name);
  });
}

test('Malformed: schemas nested past what the stack holds (200,000 levels of not) are refused, not a crash', () => {
  const levels = 200_000;
  // From the innermost out: each level is `not` (field 28, tag e2 01), its length, then the level within.
  const lengths = [0];
  for (let i = 1; i <= levels; i++) lengths.push(2 + varint(lengths[i - 1]!).length + lengths[i - 1]!);
  const bytes: number[] = [];
  for (let i = levels; i >= 1; i--) bytes.push(0xe2, 0x01, ...varint(lengths[i - 1]!));
  assert.throws(() => decodeObject(crdAround(bytes)), (err: unknown) => err instanceof ProtobufError && err.reason === 'Malformed');
});
