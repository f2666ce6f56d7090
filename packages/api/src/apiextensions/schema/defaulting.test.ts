import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchema } from '@plat/registry';
import { applyDefaults, pruneNulls } from './defaulting.js';

const d = (value: unknown): JSONSchema => ({ default: value });

// Upstream's defaulting TestDefault (apiextensions pkg/apiserver/schema/defaulting/algorithm_test.go).
const defaultCases: { name: string; json: unknown; schema: JSONSchema; want: unknown }[] = [
  { name: 'scalar', json: 4, schema: d('foo'), want: 4 },
  { name: 'scalar array', json: [1, 2], schema: { items: d('foo') }, want: [1, 2] },
  {
    name: 'object array',
    json: [{ a: 1 }, { b: 1 }, { c: 1 }],
    schema: { items: { properties: { a: d('A'), b: d('B'), c: d('C') } } },
    want: [
      { a: 1, b: 'B', c: 'C' },
      { a: 'A', b: 1, c: 'C' },
      { a: 'A', b: 'B', c: 1 },
    ],
  },
  {
    name: 'object array object',
    json: { array: [{ a: 1 }, { b: 2 }], object: { a: 1 }, additionalProperties: { x: { a: 1 }, y: { b: 2 } } },
    schema: {
      properties: {
        array: { items: { properties: { a: d('A'), b: d('B') } } },
        object: { properties: { a: d('N'), b: d('O') } },
        additionalProperties: { additionalProperties: { properties: { a: d('alpha'), b: d('beta') } } },
        foo: d('bar'),
      },
    },
    want: {
      array: [
        { a: 1, b: 'B' },
        { a: 'A', b: 2 },
      ],
      object: { a: 1, b: 'O' },
      additionalProperties: { x: { a: 1, b: 'beta' }, y: { a: 'alpha', b: 2 } },
      foo: 'bar',
    },
  },
  {
    name: 'empty and null',
    json: [{}, { a: 1 }, { a: 0 }, { a: 0.0 }, { a: '' }, { a: null }, { a: [] }, { a: {} }],
    schema: { items: { properties: { a: d('A') } } },
    want: [{ a: 'A' }, { a: 1 }, { a: 0 }, { a: 0.0 }, { a: '' }, { a: 'A' }, { a: [] }, { a: {} }],
  },
  { name: 'null in nullable list', json: [null], schema: { nullable: true, items: { properties: { a: d('A') } } }, want: [null] },
  { name: 'null in non-nullable list', json: [null], schema: { items: d('A') }, want: ['A'] },
  { name: 'null in nullable object', json: { a: null }, schema: { properties: { a: { nullable: true, default: 'A' } } }, want: { a: null } },
  { name: 'null in non-nullable object', json: { a: null }, schema: { properties: { a: d('A') } }, want: { a: 'A' } },
  {
    name: 'null in nullable object with additionalProperties',
    json: { a: null },
    schema: { additionalProperties: { nullable: true, default: 'A' } },
    want: { a: null },
  },
  { name: 'null in non-nullable object with additionalProperties', json: { a: null }, schema: { additionalProperties: d('A') }, want: { a: 'A' } },
  { name: 'null unknown field', json: { a: null }, schema: { additionalProperties: true }, want: { a: null } },
  // Beyond upstream's table: defaults inside a default, and the parts a schema does not describe.
  {
    name: 'a defaulted object gets its own fields defaulted',
    json: {},
    schema: { properties: { spec: { type: 'object', default: {}, properties: { replicas: d(1) } } } },
    want: { spec: { replicas: 1 } },
  },
  {
    name: 'unknown fields under preserve-unknown-fields get no defaults',
    json: { free: { a: {} } },
    schema: { properties: { free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { b: d('B') } } } },
    want: { free: { a: {}, b: 'B' } },
  },
];

for (const c of defaultCases) {
  test(`applyDefaults: ${c.name}`, () => {
    const value = structuredClone(c.json);
    applyDefaults(c.schema, value);
    assert.deepEqual(value, c.want);
  });
}

test('applyDefaults: each object gets its own copy of a default', () => {
  const schema: JSONSchema = { items: { properties: { tags: d(['x']) } } };
  const list: { tags: string[] }[] = [{} as { tags: string[] }, {} as { tags: string[] }];
  applyDefaults(schema, list);
  list[0]!.tags.push('y');
  assert.deepEqual(list[1]!.tags, ['x']);
  assert.deepEqual((schema.items as { properties: { tags: JSONSchema } }).properties.tags.default, ['x']);
});

// Upstream's prunenulls_test.go, and the keep-if-defaulted rule.
const nullCases: { name: string; json: unknown; schema: JSONSchema; want: unknown }[] = [
  {
    name: 'non-nullable nulls are dropped, at any depth',
    json: { a: null, b: { c: null, d: 1 }, e: [{ f: null }] },
    schema: { properties: { a: { type: 'string' }, b: { properties: { c: {}, d: {} } }, e: { items: { properties: { f: {} } } } } },
    want: { b: { d: 1 }, e: [{}] },
  },
  {
    name: 'nullable and defaulted nulls are kept',
    json: { a: null, b: null },
    schema: { properties: { a: { nullable: true }, b: { default: 'x' } } },
    want: { a: null, b: null },
  },
  { name: 'map values without nullable', json: { m: { x: null } }, schema: { properties: { m: { additionalProperties: { type: 'string' } } } }, want: { m: {} } },
  { name: 'list items are kept (validation reports them)', json: { l: [null] }, schema: { properties: { l: { items: { type: 'string' } } } }, want: { l: [null] } },
  { name: 'fields the schema does not describe are kept', json: { u: null }, schema: { properties: {} }, want: { u: null } },
];

for (const c of nullCases) {
  test(`pruneNulls: ${c.name}`, () => {
    const value = structuredClone(c.json);
    pruneNulls(c.schema, value);
    assert.deepEqual(value, c.want);
  });
}
