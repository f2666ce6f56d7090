import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../types.js';
import { validateCustomResource, validateCustomResourceStatus, validateCustomResourceUpdate } from './validate.js';

const object = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'object', properties, ...extra });
const field = (schema: JSONSchemaProps): JSONSchemaProps => object({ field: schema });

interface Case {
  name: string;
  schema: JSONSchemaProps;
  valid?: unknown[];
  invalid?: { value: unknown; errors: string[] }[];
}

// Upstream's TestValidateCustomResource (apiextensions pkg/apiserver/validation), then one case per rule.
const cases: Case[] = [
  {
    name: '!nullable',
    schema: field({ type: 'object' }),
    valid: [{}, { field: {} }],
    invalid: [
      { value: { field: 'foo' }, errors: ['field: Invalid value: "string": field in body must be of type object: "string"'] },
      { value: { field: 42 }, errors: ['field: Invalid value: "integer": field in body must be of type object: "integer"'] },
      { value: { field: true }, errors: ['field: Invalid value: "boolean": field in body must be of type object: "boolean"'] },
      { value: { field: 1.2 }, errors: ['field: Invalid value: "number": field in body must be of type object: "number"'] },
      { value: { field: [] }, errors: ['field: Invalid value: "array": field in body must be of type object: "array"'] },
      { value: { field: null }, errors: ['field: Invalid value: "null": field in body must be of type object: "null"'] },
    ],
  },
  {
    name: 'nullable',
    schema: field({ type: 'object', nullable: true }),
    valid: [{}, { field: {} }, { field: null }],
    invalid: [{ value: { field: 'foo' }, errors: ['field: Invalid value: "string": field in body must be of type object: "string"'] }],
  },
  {
    name: 'nullable and no type',
    schema: field({ nullable: true }),
    valid: [{}, { field: {} }, { field: null }, { field: 'foo' }, { field: 42 }, { field: true }, { field: 1.2 }, { field: [] }],
  },
  {
    name: 'x-kubernetes-int-or-string',
    schema: field({ 'x-kubernetes-int-or-string': true }),
    valid: [{}, { field: 42 }, { field: 'foo' }],
    invalid: [
      { value: { field: null }, errors: ['field: Invalid value: "null": field in body must be of type integer,string: "null"'] },
      { value: { field: true }, errors: ['field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"'] },
      { value: { field: 1.2 }, errors: ['field: Invalid value: "number": field in body must be of type integer,string: "number"'] },
      { value: { field: {} }, errors: ['field: Invalid value: "object": field in body must be of type integer,string: "object"'] },
      { value: { field: [] }, errors: ['field: Invalid value: "array": field in body must be of type integer,string: "array"'] },
    ],
  },
  {
    name: 'nullable, x-kubernetes-int-or-string and user-provided anyOf',
    schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }),
    valid: [{}, { field: null }, { field: 42 }, { field: 'foo' }],
    invalid: [
      {
        value: { field: true },
        errors: [
          'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
          '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
          'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
        ],
      },
    ],
  },
  {
    name: 'nullable, x-kubernetes-int-or-string and user-provided allOf',
    schema: field({ nullable: true, 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }] }),
    valid: [{}, { field: null }, { field: 42 }, { field: 'foo' }],
    invalid: [
      {
        value: { field: 1.2 },
        errors: [
          'field: Invalid value: "number": field in body must be of type integer,string: "number"',
          '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)',
          'field: Invalid value: "number": field in body must be of type integer: "number"',
          '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
        ],
      },
    ],
  },
  {
    name: 'required field',
    schema: object({ field: { type: 'object', required: ['nested'], properties: { nested: {} } } }, { required: ['field'] }),
    invalid: [
      { value: { test: 'a' }, errors: ['field: Required value'] },
      { value: { field: {} }, errors: ['field.nested: Required value'] },
    ],
  },
  {
    name: 'enum',
    schema: field({
      type: 'object',
      required: ['nestedint', 'nestedstring'],
      properties: { nestedint: { type: 'integer', enum: [1, 2] }, nestedstring: { type: 'string', enum: ['a', 'b'] } },
    }),
    invalid: [
      { value: { field: {} }, errors: ['field.nestedint: Required value', 'field.nestedstring: Required value'] },
      {
        value: { field: { nestedint: 'x', nestedstring: true } },
        errors: [
          'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
          'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
          'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
          'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
        ],
      },
    ],
  },
  {
    name: 'enum of objects and a null value',
    schema: field({ type: 'object', nullable: true, enum: [{ a: 1 }] }),
    valid: [{ field: { a: 1 } }],
    invalid: [
      { value: { field: { a: 2 } }, errors: ['field: Unsupported value: map[string]interface {}{"a":2}: supported values: "{\\"a\\":1}"'] },
      { value: { field: null }, errors: ['field: Unsupported value: "null": supported values: "{\\"a\\":1}"'] },
    ],
  },
  {
    name: 'an integer enum takes a float by its integer part (Go conversion)',
    schema: field({ type: 'number', enum: [1, 2] }),
    valid: [{ field: 1.5 }, { field: 2 }],
    invalid: [{ value: { field: 3.5 }, errors: ['field: Unsupported value: 3.5: supported values: "1", "2"'] }],
  },
  { name: 'maxProperties', schema: object({ fieldX: { type: 'object', maxProperties: 2 } }), invalid: [{ value: { fieldX: { a: true, b: true, c: true } }, errors: ['fieldX: Too many: 3: must have at most 2 items'] }] },
  { name: 'maxItems', schema: object({ fieldX: { type: 'array', maxItems: 2 } }), invalid: [{ value: { fieldX: ['a', 'b', 'c'] }, errors: ['fieldX: Too many: 3: must have at most 2 items'] }] },
  { name: 'maxLength', schema: object({ fieldX: { type: 'string', maxLength: 2 } }), invalid: [{ value: { fieldX: 'abc' }, errors: ['fieldX: Too long: may not be longer than 2'] }] },
  {
    name: 'lengths count characters, not bytes',
    schema: field({ type: 'string', maxLength: 2, minLength: 2 }),
    valid: [{ field: 'éé' }, { field: '😀😀' }],
    invalid: [{ value: { field: 'é' }, errors: ['field: Invalid value: "é": field in body should be at least 2 chars long'] }],
  },
  {
    name: 'minItems and minProperties',
    schema: object({ list: { type: 'array', minItems: 2 }, map: { type: 'object', minProperties: 1 } }),
    invalid: [
      {
        value: { list: ['a'], map: {} },
        errors: ['list: Invalid value: 1: list in body should have at least 2 items', 'map: Invalid value: 0: map in body should have at least 1 properties'],
      },
    ],
  },
  {
    name: 'minimum and maximum, inclusive and exclusive',
    schema: object({
      a: { type: 'integer', minimum: 1, maximum: 10 },
      b: { type: 'integer', minimum: 1, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
      c: { type: 'number', maximum: 1000000 },
    }),
    valid: [{ a: 1, b: 2, c: 1000000 }, { a: 10, b: 9 }],
    invalid: [
      {
        value: { a: 0, b: 10, c: 1000000.5 },
        errors: [
          'a: Invalid value: 0: a in body should be greater than or equal to 1',
          'b: Invalid value: 10: b in body should be less than 10',
          'c: Invalid value: 1.0000005e+06: c in body should be less than or equal to 1e+06',
        ],
      },
      { value: { a: 11, b: 1 }, errors: ['a: Invalid value: 11: a in body should be less than or equal to 10', 'b: Invalid value: 1: b in body should be greater than 1'] },
    ],
  },
  {
    name: 'an integer is checked against a bound truncated to an integer',
    schema: field({ type: 'integer', maximum: 2.5 }),
    valid: [{ field: 2 }],
    invalid: [{ value: { field: 3 }, errors: ['field: Invalid value: 3: field in body should be less than or equal to 2'] }],
  },
  {
    name: 'multipleOf',
    schema: object({ i: { type: 'integer', multipleOf: 5 }, f: { type: 'number', multipleOf: 0.1 }, zero: { type: 'integer', multipleOf: 0.5 } }),
    valid: [{ i: 10, f: 0.3 }],
    invalid: [
      { value: { i: 7 }, errors: ['i: Invalid value: 7: i in body should be a multiple of 5'] },
      { value: { f: 0.35 }, errors: ['f: Invalid value: 0.35: f in body should be a multiple of 0.1'] },
      { value: { zero: 3 }, errors: ['zero: Invalid value: 0: factor MultipleOf declared for zero must be positive: 0'] },
    ],
  },
  {
    name: 'pattern (RE2, unanchored as Go matches)',
    schema: object({ p: { type: 'string', pattern: '^[a-z]+$' }, q: { type: 'string', pattern: 'b' } }),
    valid: [{ p: 'abc', q: 'abc' }],
    invalid: [
      { value: { p: 'aB' }, errors: ["p: Invalid value: \"aB\": p in body should match '^[a-z]+$'"] },
      { value: { q: 'xyz' }, errors: ["q: Invalid value: \"xyz\": q in body should match 'b'"] },
      // `$` is the end of the text, not of a line before a final newline.
      { value: { p: 'abc\n' }, errors: ["p: Invalid value: \"abc\\n\": p in body should match '^[a-z]+$'"] },
    ],
  },
  {
    name: "RE2's own syntax matches as in Go",
    schema: object({
      i: { type: 'string', pattern: '(?i)^abc$' },
      posix: { type: 'string', pattern: '^[[:alpha:]]+$' },
      letter: { type: 'string', pattern: '^\\pL+$' },
      quoted: { type: 'string', pattern: '^\\Qa.b\\E$' },
      ascii: { type: 'string', pattern: '^\\w+$' },
    }),
    valid: [{ i: 'AbC', posix: 'abc', letter: 'éa', quoted: 'a.b', ascii: 'a_1' }],
    invalid: [
      { value: { quoted: 'axb' }, errors: ["quoted: Invalid value: \"axb\": quoted in body should match '^\\Qa.b\\E$'"] },
      // \\w is ASCII in RE2.
      { value: { ascii: 'é' }, errors: ["ascii: Invalid value: \"é\": ascii in body should match '^\\w+$'"] },
    ],
  },
  {
    // ECMAScript's engine took 10 s of CPU for thirty a's; RE2 is linear in the input.
    name: 'a pattern that backtracks elsewhere is linear',
    schema: object({ s: { type: 'string', pattern: '^(a+)+$' }, t: { type: 'string', pattern: '^(a|a)*$' } }),
    valid: [{ s: 'a'.repeat(100_000), t: 'a'.repeat(100_000) }],
    invalid: [
      { value: { s: `${'a'.repeat(40)}!` }, errors: [`s: Invalid value: "${'a'.repeat(40)}!": s in body should match '^(a+)+$'`] },
      { value: { t: `${'a'.repeat(40)}!` }, errors: [`t: Invalid value: "${'a'.repeat(40)}!": t in body should match '^(a|a)*$'`] },
    ],
  },
  {
    name: 'an invalid pattern refuses every value',
    schema: field({ type: 'string', pattern: '+' }),
    invalid: [{ value: { field: 'foo' }, errors: ["field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'"] }],
  },
  {
    name: 'only the first of maxLength, minLength and pattern is reported',
    schema: field({ type: 'string', maxLength: 1, pattern: '^x$' }),
    invalid: [{ value: { field: 'yy' }, errors: ['field: Too long: may not be longer than 1'] }],
  },
  {
    name: 'formats',
    schema: object({
      uuid: { type: 'string', format: 'uuid' },
      date: { type: 'string', format: 'date' },
      dateTime: { type: 'string', format: 'date-time' },
      int: { type: 'string', format: 'int32' },
      unknown: { type: 'string', format: 'no-such-format' },
    }),
    valid: [{ uuid: '123e4567-E89B-12d3-a456-426614174000', date: '2024-02-29', dateTime: '2024-01-02T03:04:05Z', int: 'anything', unknown: 'x' }],
    invalid: [
      {
        value: { uuid: 'nope', date: '2023-02-29', dateTime: '2024-01-02 03:04:05' },
        errors: [
          'uuid: Invalid value: "nope": uuid in body must be of type uuid: "nope"',
          'date: Invalid value: "2023-02-29": date in body must be of type date: "2023-02-29"',
          'dateTime: Invalid value: "2024-01-02 03:04:05": dateTime in body must be of type date-time: "2024-01-02 03:04:05"',
        ],
      },
    ],
  },
  {
    name: 'additionalProperties: a schema, and false',
    schema: object({ labels: { type: 'object', additionalProperties: { type: 'string' } }, closed: { type: 'object', additionalProperties: false } }),
    valid: [{ labels: { a: 'b' }, closed: {} }],
    invalid: [
      { value: { labels: { a: 1 } }, errors: ['labels.a: Invalid value: "integer": labels.a in body must be of type string: "integer"'] },
      { value: { closed: { x: 1 } }, errors: ['closed: Invalid value: "x": closed.x in body is a forbidden property'] },
    ],
  },
  {
    name: 'items',
    schema: field({ type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } }),
    valid: [{ field: [{ name: 'a' }] }],
    invalid: [{ value: { field: [{ name: 'a' }, {}, { name: 2 }] }, errors: ['field[1].name: Required value', 'field[2].name: Invalid value: "integer": field[2].name in body must be of type string: "integer"'] }],
  },
  {
    name: 'oneOf and not',
    schema: field({ type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }], not: { required: ['c'] } }),
    valid: [{ field: { a: 1 } }, { field: { b: 1 } }],
    invalid: [
      { value: { field: {} }, errors: ['<nil>: Invalid value: "": "field" must validate one and only one schema (oneOf). Found none valid', 'field.a: Required value'] },
      { value: { field: { a: 1, b: 1 } }, errors: ['<nil>: Invalid value: "": "field" must validate one and only one schema (oneOf). Found 2 valid alternatives'] },
      { value: { field: { a: 1, c: 1 } }, errors: ['<nil>: Invalid value: "": "field" must not validate the schema (not)'] },
    ],
  },
  {
    name: 'the root metadata: only what the schema restricts',
    schema: object({ metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } }),
    valid: [{ metadata: { name: 'abc', labels: { whatever: 'x' } } }],
    invalid: [{ value: { metadata: { name: 'toolong' } }, errors: ['metadata.name: Too long: may not be longer than 5'] }],
  },
  {
    name: 'embedded resources',
    schema: object({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    valid: [{ template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a' } } }, { template: { apiVersion: 'apps/v1', kind: 'Deployment' } }, { template: { apiVersion: 'v1', kind: 'Pod', metadata: null } }],
    invalid: [
      { value: { template: {} }, errors: ['template.apiVersion: Required value: must not be empty', 'template.kind: Required value: must not be empty'] },
      {
        value: { template: { apiVersion: 'a/b/c', kind: 'Not_Valid', metadata: { name: 'a/b', namespace: 'Bad' } } },
        errors: [
          'template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
          "template.kind: Invalid value: \"Not_Valid\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
          'template.metadata.name: Invalid value: "a/b": may not contain \'/\'',
          "template.metadata.namespace: Invalid value: \"Bad\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ],
      },
      { value: { template: { apiVersion: 1, kind: '' } }, errors: ['template.apiVersion: Invalid value: 1: must be a string', 'template.kind: Invalid value: "": must not be empty'] },
      // Metadata that does not decode as ObjectMeta is that decoding error alone, never a throw.
      ...(
        [
          [{ name: 5 }, 'map[string]interface {}{"name":5}', 'json: cannot unmarshal number into Go struct field ObjectMeta.name of type string'],
          [{ generateName: true }, 'map[string]interface {}{"generateName":true}', 'json: cannot unmarshal bool into Go struct field ObjectMeta.generateName of type string'],
          [{ labels: { a: 1 } }, 'map[string]interface {}{"labels":map[string]interface {}{"a":1}}', 'json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string'],
          [{ finalizers: 'x' }, 'map[string]interface {}{"finalizers":"x"}', 'json: cannot unmarshal string into Go struct field ObjectMeta.finalizers of type []string'],
          ['x', '"x"', 'json: cannot unmarshal string into Go value of type v1.ObjectMeta'],
        ] as const
      ).map(([metadata, shown, detail]) => ({
        value: { template: { apiVersion: 'v1', kind: 'Pod', metadata } },
        errors: [`template.metadata: Invalid value: ${shown}: ${detail}`],
      })),
    ],
  },
  {
    name: 'list-type set',
    schema: field({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }),
    valid: [{ field: ['a', 'b'] }],
    invalid: [{ value: { field: ['a', 'b', 'a', 'a', 'b'] }, errors: ['field[2]: Duplicate value: "a"', 'field[4]: Duplicate value: "b"'] }],
  },
  {
    name: 'list-type map, one key and two',
    schema: object({
      one: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
      two: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
      },
    }),
    valid: [{ one: [{ name: 'a' }, { name: 'b' }], two: [{ port: 1, protocol: 'TCP' }, { port: 1, protocol: 'UDP' }] }],
    invalid: [
      {
        value: { one: [{ name: 'a' }, { name: 'a' }, {}, {}], two: [{ port: 1, protocol: 'TCP' }, { protocol: 'TCP', port: 1 }] },
        errors: [
          'one[1]: Duplicate value: map[string]interface {}{"name":"a"}',
          'one[3]: Duplicate value: map[string]interface {}{}',
          'two[1]: Duplicate value: map[string]interface {}{"port":1, "protocol":"TCP"}',
        ],
      },
      {
        value: { one: ['a', 'b'] },
        errors: [
          'one[0]: Invalid value: "string": one[0] in body must be of type object: "string"',
          'one[1]: Invalid value: "string": one[1] in body must be of type object: "string"',
          'one[0]: Invalid value: "a": must be an object for an array of list-type map',
        ],
      },
    ],
  },
];

const messages = (errors: readonly { toString(): string }[]): string[] => errors.map(String).sort();

for (const c of cases) {
  test(`validateCustomResource: ${c.name}`, () => {
    for (const value of c.valid ?? []) assert.deepEqual(messages(validateCustomResource(c.schema, value)), [], JSON.stringify(value));
    for (const { value, errors } of c.invalid ?? []) assert.deepEqual(messages(validateCustomResource(c.schema, value)), [...errors].sort(), JSON.stringify(value));
  });
}

test('validateCustomResource: field errors carry upstream reasons', () => {
  const schema = object({ n: { type: 'integer' }, l: { type: 'array', maxItems: 0 }, e: { type: 'string', enum: ['a'] } }, { required: ['r'] });
  const reasons = Object.fromEntries(validateCustomResource(schema, { n: 'x', l: [1], e: 'b' }).map((error) => [error.field, error.type]));
  assert.deepEqual(reasons, { n: 'FieldValueTypeInvalid', l: 'FieldValueTooMany', e: 'FieldValueNotSupported', r: 'FieldValueRequired' });
});

test('validateCustomResourceUpdate: set and map duplicates already in the old object are not reported again', () => {
  const schema = field({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } });
  assert.deepEqual(messages(validateCustomResourceUpdate(schema, { field: ['a', 'a'] }, { field: ['b', 'b'] })), []);
  assert.deepEqual(messages(validateCustomResourceUpdate(schema, { field: ['a', 'a'] }, { field: ['a'] })), ['field[1]: Duplicate value: "a"']);
});

test('validateCustomResourceStatus: the status against its own schema, paths relative to it as in 1.28', () => {
  const schema = object({ spec: { type: 'object', properties: { x: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' } } } });
  assert.deepEqual(messages(validateCustomResourceStatus(schema, { spec: { x: 'bad' }, status: { replicas: 'two' } }, {})), [
    'replicas: Invalid value: "string": replicas in body must be of type integer: "string"',
  ]);
  assert.deepEqual(validateCustomResourceStatus(schema, { spec: {} }, {}), []);
});
