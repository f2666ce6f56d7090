import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldError, FieldPath, aggregateMessage, duplicate, forbidden, invalid, newPath, notSupported, required, tooLong } from './field-errors.js';

const pathCases: { name: string; path: FieldPath; want: string }[] = [
  { name: 'root', path: newPath('spec'), want: 'spec' },
  { name: 'children', path: newPath('metadata').child('name'), want: 'metadata.name' },
  { name: 'several names at once', path: newPath('spec', 'template').child('metadata', 'labels'), want: 'spec.template.metadata.labels' },
  { name: 'index then child', path: newPath('spec').child('rules').index(0).child('verbs'), want: 'spec.rules[0].verbs' },
  { name: 'key', path: newPath('metadata', 'labels').key('app'), want: 'metadata.labels[app]' },
  { name: 'nested subscripts', path: newPath('a').index(1).key('b').index(2), want: 'a[1][b][2]' },
  { name: 'FieldPath.root is newPath', path: FieldPath.root('x', 'y'), want: 'x.y' },
];

for (const { name, path, want } of pathCases) {
  test(`field path: ${name}`, () => assert.equal(path.toString(), want));
}

test('field path: paths are immutable', () => {
  const base = newPath('spec');
  base.child('a');
  base.index(3);
  assert.equal(base.toString(), 'spec');
});

const errorCases: { name: string; error: FieldError; type: string; want: string }[] = [
  { name: 'required', error: required(newPath('spec', 'x')), type: 'FieldValueRequired', want: 'spec.x: Required value' },
  {
    name: 'required with detail',
    error: required(newPath('metadata', 'name'), 'name or generateName is required'),
    type: 'FieldValueRequired',
    want: 'metadata.name: Required value: name or generateName is required',
  },
  {
    name: 'invalid string',
    error: invalid(newPath('metadata', 'name'), 'Foo', 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'),
    type: 'FieldValueInvalid',
    want: 'metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters',
  },
  {
    name: 'invalid number',
    error: invalid(newPath('spec', 'replicas'), -1, 'must be greater than or equal to 0'),
    type: 'FieldValueInvalid',
    want: 'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
  },
  { name: 'invalid boolean, no detail', error: invalid(newPath('x'), true, ''), type: 'FieldValueInvalid', want: 'x: Invalid value: true' },
  { name: 'invalid null', error: invalid(newPath('x'), null, 'must be set'), type: 'FieldValueInvalid', want: 'x: Invalid value: null: must be set' },
  {
    name: 'invalid string with escapes is quoted as Go does',
    error: invalid(newPath('x'), 'a"b\n\x01', 'bad'),
    type: 'FieldValueInvalid',
    want: 'x: Invalid value: "a\\"b\\n\\x01": bad',
  },
  {
    name: 'not supported',
    error: notSupported(newPath('spec', 'rules').index(0).child('verbs').index(1), 'fly', ['get', 'list']),
    type: 'FieldValueNotSupported',
    want: 'spec.rules[0].verbs[1]: Unsupported value: "fly": supported values: "get", "list"',
  },
  { name: 'not supported, no list', error: notSupported(newPath('x'), 'y', []), type: 'FieldValueNotSupported', want: 'x: Unsupported value: "y"' },
  {
    name: 'forbidden',
    error: forbidden(newPath('metadata', 'namespace'), 'not allowed on this type'),
    type: 'FieldValueForbidden',
    want: 'metadata.namespace: Forbidden: not allowed on this type',
  },
  {
    name: 'duplicate',
    error: duplicate(newPath('spec', 'ports').index(1).child('name'), 'http'),
    type: 'FieldValueDuplicate',
    want: 'spec.ports[1].name: Duplicate value: "http"',
  },
  {
    name: 'too long does not echo the value',
    error: tooLong(newPath('metadata', 'annotations'), 'x'.repeat(300000), 262144),
    type: 'FieldValueTooLong',
    want: 'metadata.annotations: Too long: must have at most 262144 bytes',
  },
  {
    name: 'too many echoes the count (upstream field.TooMany)',
    error: new FieldError('FieldValueTooMany', 'spec.items', 3, 'must have at most 2 items'),
    type: 'FieldValueTooMany',
    want: 'spec.items: Too many: 3: must have at most 2 items',
  },
  {
    name: 'type invalid reads as Invalid value (upstream field.TypeInvalid)',
    error: new FieldError('FieldValueTypeInvalid', 'spec.replicas', 'string', 'spec.replicas in body must be of type integer: "string"'),
    type: 'FieldValueTypeInvalid',
    want: 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
  },
];

for (const { name, error, type, want } of errorCases) {
  test(`field error: ${name}`, () => {
    assert.equal(error.type, type);
    assert.equal(error.toString(), want);
    assert.equal(`${error.field}: ${error.body()}`, want);
  });
}

test('field errors: aggregate message', () => {
  const a = required(newPath('a'));
  const b = required(newPath('b'));
  assert.equal(aggregateMessage([]), '');
  assert.equal(aggregateMessage([a]), 'a: Required value');
  assert.equal(aggregateMessage([a, b, a]), '[a: Required value, b: Required value]');
  assert.equal(aggregateMessage([a, a]), 'a: Required value');
});
