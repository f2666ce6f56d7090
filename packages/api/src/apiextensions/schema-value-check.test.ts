import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPath } from '@plat/apimachinery';
import { checkValueAgainstSchema } from './schema-value-check.js';
import type { JSONSchemaProps, JsonValue } from './types.js';

// The custom resources' validator, its errors placed under a default's path as upstream places them.
const check = (schema: JSONSchemaProps, value: JsonValue): string[] =>
  checkValueAgainstSchema(newPath('spec', 'properties').key('a').child('default'), value, schema).map(String);

const P = 'spec.properties[a].default';

const cases: { name: string; schema: JSONSchemaProps; value: JsonValue; want: string[] }[] = [
  { name: 'a matching value', schema: { type: 'object', properties: { a: { type: 'integer' } } }, value: { a: 1 }, want: [] },
  { name: 'the value itself of the wrong type', schema: { type: 'integer' }, value: 'x', want: [`${P}: Invalid value: "string":  in body must be of type integer: "string"`] },
  {
    name: 'fields, items and map entries below the default',
    schema: {
      type: 'object',
      required: ['r'],
      properties: { r: { type: 'string' }, list: { type: 'array', items: { type: 'integer', maximum: 3 } }, map: { type: 'object', additionalProperties: { type: 'string' } } },
    },
    value: { list: [1, 5], map: { k: true } },
    want: [
      `${P}.list[1]: Invalid value: 5: list[1] in body should be less than or equal to 3`,
      `${P}.map.k: Invalid value: "boolean": map.k in body must be of type string: "boolean"`,
      `${P}.r: Required value`,
    ],
  },
  {
    name: 'a junctor failure sits at the default itself',
    schema: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    value: true,
    want: [`${P}: Invalid value: "": "" must validate at least one schema (anyOf)`, `${P}: Invalid value: "boolean":  in body must be of type integer: "boolean"`],
  },
  // A root list's item is named `[0]`, a child of the default's path, as upstream names it.
  { name: 'counts and lengths', schema: { type: 'array', maxItems: 1, items: { type: 'string', maxLength: 2 } }, value: ['abc', 'b'], want: [`${P}.[0]: Too long: may not be longer than 2`, `${P}: Too many: 2: must have at most 1 items`] },
  { name: 'enums', schema: { enum: ['a', 1, null] }, value: 'b', want: [`${P}: Unsupported value: "b": supported values: "a", "1", "null"`] },
];

for (const c of cases) test(`schema value check: ${c.name}`, () => assert.deepEqual(check(c.schema, c.value), c.want));
