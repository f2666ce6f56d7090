import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneUnknownFields, type JSONSchema } from '@plat/registry';
import { objectMetaSchema } from '../../common/object-meta-schema.js';
import type { JSONSchemaProps } from '../types.js';
import { structuralSchema } from './structural.js';

const props = (schema: JSONSchema): Record<string, JSONSchema> => schema.properties as Record<string, JSONSchema>;

test('structuralSchema: the root has apiVersion, kind and ObjectMeta, and is closed', () => {
  const schema = structuralSchema({ type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } });
  assert.deepEqual(Object.keys(props(schema)), ['spec', 'apiVersion', 'kind', 'metadata']);
  assert.equal(props(schema).metadata, objectMetaSchema, 'shared by identity, so that OpenAPI refers to ObjectMeta');
  assert.equal(props(schema).apiVersion!.type, 'string');
  assert.equal(schema.additionalProperties, false);
  assert.equal(props(schema).spec!.additionalProperties, false);
  assert.equal(schema.required, undefined);
});

test('structuralSchema: the CRD root metadata (name restrictions) is replaced by ObjectMeta', () => {
  const schema = structuralSchema({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } } });
  assert.equal(props(schema).metadata, objectMetaSchema);
});

test('structuralSchema: embedded resources get type meta and ObjectMeta, and require apiVersion and kind', () => {
  const schema = structuralSchema({
    type: 'object',
    properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, required: ['kind'] } },
  });
  const template = props(schema).template!;
  assert.deepEqual(Object.keys(props(template)), ['apiVersion', 'kind', 'metadata']);
  assert.equal(props(template).metadata, objectMetaSchema);
  assert.deepEqual(template.required, ['kind', 'apiVersion']);
  assert.equal(template.additionalProperties, undefined, 'preserving: not closed');
});

test('structuralSchema: OpenAPI keywords in the definition dialect', () => {
  const input: JSONSchemaProps = {
    type: 'object',
    properties: {
      bounded: { type: 'integer', minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false },
      port: { 'x-kubernetes-int-or-string': true },
      already: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      constrained: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }] },
      list: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic' },
        example: [],
        externalDocs: { url: 'https://example.com' },
      },
      nullableString: { type: 'string', nullable: true, description: 'd', format: 'email', pattern: '^a', enum: ['a'] },
      rules: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] },
    },
  };
  const p = props(structuralSchema(input));
  assert.deepEqual(p.bounded, { type: 'integer', exclusiveMinimum: 1, maximum: 9 });
  assert.deepEqual(p.port, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual(p.already, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual(p.constrained!.allOf, [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }]);
  assert.deepEqual(p.list, {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: { type: 'object', properties: { name: { type: 'string' } }, 'x-kubernetes-map-type': 'atomic', additionalProperties: false },
  });
  assert.deepEqual(p.nullableString, { type: 'string', nullable: true, description: 'd', format: 'email', pattern: '^a', enum: ['a'] });
  assert.deepEqual(p.rules!['x-kubernetes-validations'], [{ rule: 'self != ""' }]);
});

test('structuralSchema: defaults are pruned by their schema (upstream PruneDefaults)', () => {
  const schema = structuralSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: { a: 1, unknown: 2, nested: { b: 1, gone: 3 } },
        properties: { a: { type: 'integer' }, nested: { type: 'object', properties: { b: { type: 'integer' } } } },
      },
      embedded: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', unknown: 1 }, kept: true },
      },
    },
  });
  assert.deepEqual(props(schema).spec!.default, { a: 1, nested: { b: 1 } });
  assert.deepEqual(props(schema).embedded!.default, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, kept: true });
});

test('structuralSchema: the input is not changed', () => {
  const input: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', default: { x: 1 } } } };
  const copy = structuredClone(input);
  structuralSchema(input);
  assert.deepEqual(input, copy);
});

// Upstream's pruning TestPrune (pkg/apiserver/schema/pruning/algorithm_test.go) through the registry's
// walk over the structural schema: what is pruned, and the paths reported (sorted, as upstream sorts).
const pruneCases: { name: string; schema: JSONSchemaProps; json: unknown; want: unknown; pruned: string[] }[] = [
  {
    name: 'object array object',
    schema: {
      type: 'object',
      properties: {
        array: { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' }, c: { type: 'integer' } } } },
        specified: { type: 'object', properties: { a: { type: 'integer' }, c: { type: 'integer' } } },
      },
    },
    json: { array: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }], unspecified: { a: 1 }, specified: { a: 1, b: 2, c: 3 } },
    want: { array: [{ a: 1 }, {}, { a: 1, c: 3 }], specified: { a: 1, c: 3 } },
    pruned: ['array[1].b', 'array[2].b', 'specified.b', 'unspecified'],
  },
  {
    name: 'nested x-kubernetes-preserve-unknown-fields',
    schema: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        alpha: { type: 'string' },
        pruning: {
          type: 'object',
          properties: { preserving: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, pruning: { type: 'object' } },
        },
        preserving: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { pruning: { type: 'object' }, preservingUnknownType: { 'x-kubernetes-preserve-unknown-fields': true } },
        },
        preservingAdditionalProperties: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          additionalProperties: { type: 'object', properties: { specified: { type: 'object' } } },
        },
      },
    },
    json: {
      unspecified: 'bar',
      alpha: 'abc',
      pruning: { unspecified: 'bar', pruning: { unspecified: 'bar' }, apiVersion: 'unknown', preserving: { unspecified: 'bar' } },
      preserving: { unspecified: 'bar', pruning: { unspecified: 'bar' }, preservingUnknownType: [{ foo: true }] },
      preservingAdditionalProperties: { foo: { specified: { unspecified: 'bar' }, unspecified: 'bar' } },
    },
    want: {
      unspecified: 'bar',
      alpha: 'abc',
      pruning: { pruning: {}, preserving: { unspecified: 'bar' } },
      preserving: { unspecified: 'bar', pruning: {}, preservingUnknownType: [{ foo: true }] },
      preservingAdditionalProperties: { foo: { specified: {} } },
    },
    pruned: [
      'preserving.pruning.unspecified',
      'preservingAdditionalProperties.foo.specified.unspecified',
      'preservingAdditionalProperties.foo.unspecified',
      'pruning.apiVersion',
      'pruning.pruning.unspecified',
      'pruning.unspecified',
    ],
  },
  {
    name: 'x-kubernetes-embedded-resource: type meta kept, metadata pruned to ObjectMeta (pruning plus coercion)',
    schema: {
      type: 'object',
      properties: {
        pruned: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
        preserving: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    json: {
      apiVersion: 'foo/v1',
      kind: 'Foo',
      metadata: { name: 'instance', unspecified: 'bar' },
      unspecified: 'bar',
      pruned: { apiVersion: 'foo/v1', kind: 'Foo', unspecified: 'bar', metadata: { name: 'instance', unspecified: 'bar' }, spec: { unspecified: 'bar' } },
      preserving: { apiVersion: 'foo/v1', kind: 'Foo', unspecified: 'bar', metadata: { name: 'instance', unspecified: 'bar' }, spec: { unspecified: 'bar' } },
    },
    want: {
      apiVersion: 'foo/v1',
      kind: 'Foo',
      metadata: { name: 'instance' },
      pruned: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'instance' }, spec: {} },
      preserving: { apiVersion: 'foo/v1', kind: 'Foo', unspecified: 'bar', metadata: { name: 'instance' }, spec: { unspecified: 'bar' } },
    },
    pruned: [
      'metadata.unspecified',
      'preserving.metadata.unspecified',
      'pruned.metadata.unspecified',
      'pruned.spec.unspecified',
      'pruned.unspecified',
      'unspecified',
    ],
  },
  {
    name: 'additionalProperties with schema',
    schema: {
      type: 'object',
      properties: { a: { type: 'integer' }, c: { type: 'object', additionalProperties: { type: 'object', properties: {} } } },
    },
    json: { a: 1, b: 1, c: { a: { x: 1 }, b: {} } },
    want: { a: 1, c: { a: {}, b: {} } },
    pruned: ['b', 'c.a.x'],
  },
];

for (const c of pruneCases) {
  test(`structuralSchema prunes as upstream: ${c.name}`, () => {
    const value = structuredClone(c.json);
    const pruned = pruneUnknownFields(structuralSchema(c.schema), value);
    assert.deepEqual(value, c.want);
    assert.deepEqual([...pruned].sort(), c.pruned);
  });
}
