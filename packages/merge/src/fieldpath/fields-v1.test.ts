import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from './field-set.js';
import { decodeFieldsV1, encodeFieldsV1 } from './fields-v1.js';
import { keyElement, pathString, valueElement, type FieldPath } from './path-element.js';
import { toFieldSet } from '../typed.js';
import { roleSchema, serviceAccountSchema, widgetSchema } from '../testing/schemas.js';
import type { JSONSchema } from '../schema-walker.js';

const encodings: { name: string; schema: JSONSchema; object: unknown; want: string }[] = [
  {
    name: 'a Role with two rules: the atomic list is one leaf',
    schema: roleSchema,
    object: { rules: [{ verbs: ['get'], resources: ['pods'] }, { verbs: ['list'], resources: ['secrets'] }] },
    want: '{"f:rules":{}}',
  },
  {
    name: 'ServiceAccount secrets: a map list on name whose items are atomic (ObjectReference)',
    schema: serviceAccountSchema,
    object: { secrets: [{ name: 'a' }, { name: 'b', namespace: 'x' }], automountServiceAccountToken: false },
    want: '{"f:automountServiceAccountToken":{},"f:secrets":{"k:{\\"name\\":\\"a\\"}":{},"k:{\\"name\\":\\"b\\"}":{}}}',
  },
  {
    name: 'granular map-list items carry "." and their fields; keys sorted as upstream',
    schema: widgetSchema,
    object: {
      spec: {
        ports: [
          { port: 80, protocol: 'TCP', name: 'http' },
          { port: 53, protocol: 'UDP' },
        ],
      },
    },
    want:
      '{"f:spec":{"f:ports":{' +
      '"k:{\\"port\\":53,\\"protocol\\":\\"UDP\\"}":{".":{},"f:port":{},"f:protocol":{}},' +
      '"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}}}}}',
  },
  {
    name: 'sets are v: elements; string maps are f: entries; atomic maps one leaf',
    schema: widgetSchema,
    object: {
      metadata: { labels: { b: '1', a: '2' }, finalizers: ['z', 'a'] },
      spec: { tags: ['x'], selector: { matchLabels: { a: 'b' } }, data: {} },
    },
    want:
      '{"f:metadata":{"f:finalizers":{"v:\\"a\\"":{},"v:\\"z\\"":{}},"f:labels":{"f:a":{},"f:b":{}}},' +
      '"f:spec":{"f:data":{},"f:selector":{},"f:tags":{"v:\\"x\\"":{}}}}',
  },
  {
    name: 'untyped (preserve-unknown-fields) objects are granular, their lists atomic',
    schema: widgetSchema,
    object: { spec: { extra: { a: { b: 1 }, list: [1, 2] } } },
    want: '{"f:spec":{"f:extra":{"f:a":{".":{},"f:b":{}},"f:list":{}}}}',
  },
  {
    name: 'an empty granular list is not owned; nulls and empty objects are',
    schema: widgetSchema,
    object: { spec: { tags: [], paused: null, strategy: {} } },
    want: '{"f:spec":{"f:paused":{},"f:strategy":{}}}',
  },
];

for (const { name, schema, object, want } of encodings) {
  test(`FieldsV1: ${name}`, () => {
    const set = toFieldSet(object, schema);
    const encoded = encodeFieldsV1(set);
    assert.equal(JSON.stringify(encoded), want);
    assert.ok(decodeFieldsV1(JSON.parse(want)).equals(set), 'decodes back to the same set');
  });
}

test('FieldsV1: element order is fields, keys, values, indices; values numbers, strings, booleans', () => {
  const set = FieldSet.of(
    ['i:2'],
    [valueElement(true)],
    [valueElement('b')],
    [valueElement(10)],
    [valueElement(9)],
    [keyElement({ name: 'b' })],
    [keyElement({ name: 'a', port: 2 })],
    [keyElement({ name: 'a' })],
    ['f:z'],
    ['f:a'],
    ['i:10'],
  );
  assert.deepEqual(Object.keys(encodeFieldsV1(set)), [
    'f:a',
    'f:z',
    'k:{"name":"a"}',
    'k:{"name":"a","port":2}',
    'k:{"name":"b"}',
    'v:9',
    'v:10',
    'v:"b"',
    'v:true',
    'i:2',
    'i:10',
  ]);
});

test('FieldsV1: key values are written as Go writes JSON (sorted, HTML escaped)', () => {
  assert.equal(keyElement({ protocol: 'TCP', port: 80 }), 'k:{"port":80,"protocol":"TCP"}');
  assert.equal(keyElement({ name: 'a<b>&c' }), 'k:{"name":"a\\u003cb\\u003e\\u0026c"}');
  assert.equal(valueElement({ b: 1, a: [true] }), 'v:{"a":[true],"b":1}');
});

test('FieldsV1: decoding canonicalizes keys, drops unknown element types, reads "." and leaves', () => {
  const set = decodeFieldsV1({
    'f:spec': { '.': {}, 'f:a': {}, 'x:future': {} },
    'k:{"protocol":"TCP", "port":80}': { 'f:port': {} },
    'f:only': { 'r:unknown': {} },
  });
  const paths = set.paths().map((p) => pathString(p));
  assert.deepEqual(paths, ['.only', '.spec', '.spec.a', '[port=80,protocol="TCP"].port']);
  assert.equal(
    JSON.stringify(encodeFieldsV1(set)),
    '{"f:only":{},"f:spec":{".":{},"f:a":{}},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{"f:port":{}}}',
  );
});

test('FieldsV1: malformed elements are refused', () => {
  assert.throws(() => decodeFieldsV1({ x: {} }));
  assert.throws(() => decodeFieldsV1({ 'k:{bad': {} }));
  assert.throws(() => decodeFieldsV1({ 'f:a': 'not an object' }));
});

test('FieldsV1: round trip of a larger set', () => {
  const paths: FieldPath[] = [];
  for (let i = 0; i < 30; i++) {
    paths.push(['f:spec', 'f:containers', keyElement({ name: `c${i % 7}` }), `f:field${i % 5}`]);
    paths.push(['f:metadata', 'f:labels', `f:label-${i}`]);
    if (i % 3 === 0) paths.push(['f:spec', 'f:containers', keyElement({ name: `c${i % 7}` })]);
    if (i % 4 === 0) paths.push(['f:spec', 'f:tags', valueElement(i)]);
  }
  const set = FieldSet.of(...paths);
  const decoded = decodeFieldsV1(JSON.parse(JSON.stringify(encodeFieldsV1(set))));
  assert.ok(decoded.equals(set));
  assert.equal(decoded.size, set.size);
});

test('path strings are upstream\'s', () => {
  assert.equal(pathString(['f:secrets', keyElement({ name: 'x' })]), '.secrets[name="x"]');
  assert.equal(pathString(['f:metadata', 'f:labels', 'f:app']), '.metadata.labels.app');
  assert.equal(pathString(['f:spec', 'f:ports', keyElement({ port: 80, protocol: 'TCP' }), 'f:name']), '.spec.ports[port=80,protocol="TCP"].name');
  assert.equal(pathString(['f:metadata', 'f:finalizers', valueElement('a')]), '.metadata.finalizers[="a"]');
  assert.equal(pathString(['f:rules', 'i:0']), '.rules[0]');
});

test('FieldSet operations', () => {
  const a = FieldSet.of(['f:a'], ['f:b', 'f:c'], ['f:b', 'f:d'], ['f:e']);
  const b = FieldSet.of(['f:b', 'f:c'], ['f:e'], ['f:x']);
  assert.deepEqual(a.union(b).paths().map(pathString), ['.a', '.e', '.x', '.b.c', '.b.d']);
  assert.deepEqual(a.intersection(b).paths().map(pathString), ['.e', '.b.c']);
  assert.deepEqual(a.difference(b).paths().map(pathString), ['.a', '.b.d']);
  // Difference keeps paths below the other's members; the recursive one drops them.
  const parent = FieldSet.of(['f:b']);
  assert.deepEqual(a.difference(parent).paths().map(pathString), ['.a', '.e', '.b.c', '.b.d']);
  assert.deepEqual(a.recursiveDifference(parent).paths().map(pathString), ['.a', '.e']);
  assert.ok(a.has(['f:b', 'f:c']) && !a.has(['f:b']));
  assert.ok(new FieldSet().isEmpty() && a.difference(a).isEmpty());
  assert.deepEqual(a.paths().map(pathString), ['.a', '.e', '.b.c', '.b.d'], 'inputs unchanged');
});
