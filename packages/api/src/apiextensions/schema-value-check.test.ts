import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPath } from '@plat/apimachinery';
import { checkValueAgainstSchema, goFloat } from './schema-value-check.js';
import type { JSONSchemaProps, JsonValue } from './types.js';

test('goFloat prints as Go\'s %v of a float64', () => {
  const cases: [number, string][] = [
    [0, '0'],
    [1.5, '1.5'],
    [10, '10'],
    [123456, '123456'],
    [1000000, '1e+06'],
    [1234567, '1.234567e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-2.5e21, '-2.5e+21'],
  ];
  for (const [n, want] of cases) assert.equal(goFloat(n), want, String(n));
});

const check = (schema: JSONSchemaProps, value: JsonValue): string[] => checkValueAgainstSchema(newPath('default'), value, schema).map(String);

const cases: { name: string; schema: JSONSchemaProps; value: JsonValue; want: string[] }[] = [
  { name: 'a matching value', schema: { type: 'object', properties: { a: { type: 'integer' } } }, value: { a: 1 }, want: [] },
  { name: 'an integer is a number', schema: { type: 'number' }, value: 3, want: [] },
  { name: 'a fraction is not an integer', schema: { type: 'integer' }, value: 1.5, want: ['default: Invalid value: "number":  in body must be of type integer: "number"'] },
  { name: 'null where not nullable', schema: { type: 'string' }, value: null, want: ['default: Invalid value: "null":  in body must be of type string: "null"'] },
  { name: 'null where nullable', schema: { type: 'string', nullable: true }, value: null, want: [] },
  { name: 'int-or-string takes both', schema: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, value: '10%', want: [] },
  {
    name: 'anyOf with no match names the first failure',
    schema: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    value: true,
    want: ['default: Invalid value: "": "" must validate at least one schema (anyOf)', 'default: Invalid value: "boolean":  in body must be of type integer: "boolean"'],
  },
  {
    name: 'oneOf with two matches',
    schema: { oneOf: [{ minimum: 1 }, { maximum: 10 }] },
    value: 5,
    want: ['default: Invalid value: "": "" must validate one and only one schema (oneOf). Found 2 valid alternatives'],
  },
  { name: 'not', schema: { not: { enum: ['x'] } }, value: 'x', want: ['default: Invalid value: "": "" must not validate the schema (not)'] },
  {
    name: 'nested names: fields, items, additional properties',
    schema: {
      type: 'object',
      properties: { list: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } } } }, map: { type: 'object', additionalProperties: { type: 'string' } } },
    },
    value: { list: [{ n: -1 }], map: { k: 1 } },
    want: ['default.list[0].n: Invalid value: -1: list[0].n in body should be greater than or equal to 0', 'default.map.k: Invalid value: "integer": map.k in body must be of type string: "integer"'],
  },
  {
    name: 'no additional properties',
    schema: { type: 'object', additionalProperties: false },
    value: { x: 1 },
    want: ['default: Invalid value: "x": .x in body is a forbidden property'],
  },
  {
    name: 'lengths count characters, counts of items and properties',
    schema: { type: 'object', minProperties: 3, properties: { s: { type: 'string', minLength: 3 }, l: { type: 'array', minItems: 2, items: { type: 'string' } } } },
    value: { s: 'éé', l: ['a'] },
    want: [
      'default: Invalid value: 2:  in body should have at least 3 properties',
      'default.s: Invalid value: "éé": s in body should be at least 3 chars long',
      'default.l: Invalid value: 1: l in body should have at least 2 items',
    ],
  },
  { name: 'a float bound prints as Go prints floats', schema: { type: 'number', maximum: 1e6, exclusiveMaximum: true }, value: 1e6 + 0.5, want: ['default: Invalid value: 1000000.5:  in body should be less than 1e+06'] },
  { name: 'patterns in RE2-only syntax are not checked here', schema: { type: 'string', pattern: '(?i)^abc$' }, value: 'xyz', want: [] },
];

for (const c of cases) test(`schema value check: ${c.name}`, () => assert.deepEqual(check(c.schema, c.value), c.want));
