import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchema, ResourceDefinition } from './definition.js';
import { checkFields, pruneUnknownFields } from './schema-check.js';

const definition = (schema: JSONSchema): ResourceDefinition => ({ schema }) as ResourceDefinition;

const closed = (properties: Record<string, JSONSchema>, extra: JSONSchema = {}): JSONSchema => ({
  type: 'object',
  properties,
  additionalProperties: false,
  ...extra,
});

const pruneCases: { name: string; schema: JSONSchema; value: unknown; want: unknown; unknown: string[] }[] = [
  {
    name: 'a closed object loses what it does not declare',
    schema: closed({ a: { type: 'string' } }),
    value: { a: 'x', b: 1 },
    want: { a: 'x' },
    unknown: ['b'],
  },
  {
    name: 'preserve-unknown-fields keeps undeclared fields but prunes below declared ones',
    schema: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { pruning: closed({ kept: { type: 'string' } }) },
    },
    value: { other: { deep: 1 }, pruning: { kept: 'y', dropped: 2 } },
    want: { other: { deep: 1 }, pruning: { kept: 'y' } },
    unknown: ['pruning.dropped'],
  },
  {
    name: 'the items of a preserving list keep their undeclared fields',
    schema: {
      type: 'array',
      'x-kubernetes-preserve-unknown-fields': true,
      items: closed({ a: closed({}) }),
    },
    value: [{ a: { gone: 1 }, b: 2 }],
    want: [{ a: {}, b: 2 }],
    unknown: ['[0].a.gone'],
  },
  {
    name: 'additionalProperties values are walked with their schema, not the parent preserve flag',
    schema: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      additionalProperties: closed({ specified: closed({}) }),
    },
    value: { foo: { specified: { x: 1 }, unspecified: 'bar' } },
    want: { foo: { specified: {} } },
    unknown: ['foo.specified.x', 'foo.unspecified'],
  },
];

for (const c of pruneCases) {
  test(`pruneUnknownFields: ${c.name}`, () => {
    const value = structuredClone(c.value);
    assert.deepEqual(pruneUnknownFields(c.schema, value), c.unknown);
    assert.deepEqual(value, c.want);
  });
}

test('checkFields: a null is kept where the schema allows it or defaults it, dropped elsewhere', () => {
  const schema = closed({
    nullable: { type: 'string', nullable: true },
    defaulted: { type: 'string', default: 'd' },
    plain: { type: 'string' },
    list: { type: 'array', items: { type: 'string', nullable: true } },
    map: { type: 'object', additionalProperties: { type: 'string', default: 'x' } },
    zeroed: { type: 'object', additionalProperties: { type: 'string' } },
  });
  const object = { nullable: null, defaulted: null, plain: null, list: [null], map: { a: null }, zeroed: { a: null } };
  const check = checkFields(definition(schema), object, true);
  assert.deepEqual(object, { nullable: null, defaulted: null, list: [null], map: { a: null }, zeroed: { a: '' } });
  assert.deepEqual(check.unknownFields, []);
});
