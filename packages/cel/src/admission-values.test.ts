// What admission expressions read: variables declared with a dotted name (cel-go's qualified
// identifiers, `authorizer.requestResource`) and unstructured JSON data read as cel-go's native
// adapter reads Kubernetes' unstructured objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CelEnvironment } from './environment.js';
import { PER_CALL_LIMIT } from './limits.js';
import { DynType, IntType, StringType } from './types.js';
import { unstructuredValue } from './unstructured-values.js';
import { ErrorValue, type Value } from './values.js';

const env = new CelEnvironment(
  new Map([
    ['a', DynType],
    ['a.b', StringType],
    ['n', IntType],
  ]),
);

const object = {
  metadata: { name: 'web', labels: { app: 'shop' } },
  spec: { replicas: 3, ratio: 0.5, ports: [80, 443], paused: false, note: null },
};

const run = (source: string, activation: Record<string, Value>): Value => env.compile(source).evaluate(activation, PER_CALL_LIMIT).value;

const cases: { name: string; source: string; want: unknown }[] = [
  { name: 'a dotted variable is read as one', source: 'a.b', want: 'qualified' },
  { name: 'a dotted variable has its declared type', source: 'a.b.size()', want: 9n },
  { name: 'other fields of the root are still selected', source: 'a.c', want: 'plain' },
  { name: 'a local shadows the root of a dotted name', source: '[{"b": "local"}].all(a, a.b == "local")', want: true },
  { name: 'has() on the root is a field test, not the dotted name', source: 'has(a.c)', want: true },
];

for (const c of cases) {
  test(`qualified identifiers: ${c.name}`, () => {
    assert.deepEqual(run(c.source, { a: unstructuredValue({ b: 'field', c: 'plain' }), 'a.b': 'qualified' }), c.want);
  });
}

test('qualified identifiers: a dotted variable costs one, as an identifier', () => {
  const evaluation = env.compile('a.b').evaluate({ a: null, 'a.b': 'x' }, PER_CALL_LIMIT);
  assert.equal(evaluation.cost, 1);
});

test('qualified identifiers: a missing dotted variable is an error, not a field read', () => {
  const value = run('a.b', { a: unstructuredValue({ b: 'field' }) });
  assert.ok(value instanceof ErrorValue);
  assert.equal(value.message, 'no such attribute: a.b');
});

const unstructured: { name: string; source: string; want: unknown }[] = [
  { name: 'whole numbers are int', source: 'a.spec.replicas == 3 && type(a.spec.replicas) == int', want: true },
  { name: 'other numbers are double', source: 'type(a.spec.ratio) == double', want: true },
  { name: 'nested maps select', source: 'a.metadata.labels.app', want: 'shop' },
  { name: 'arrays are lists', source: 'a.spec.ports.exists(p, p == 443) && size(a.spec.ports) == 2', want: true },
  { name: 'null is null', source: 'a.spec.note == null', want: true },
  { name: 'has() of a present field', source: 'has(a.metadata.labels)', want: true },
  { name: 'has() of a missing field', source: 'has(a.metadata.annotations)', want: false },
  { name: 'a missing field is an error', source: 'a.metadata.annotations', want: { error: 'no such key: annotations' } },
  { name: 'maps iterate their keys', source: 'a.metadata.labels.all(k, k == "app")', want: true },
  { name: 'maps compare by value', source: 'a.metadata.labels == {"app": "shop"}', want: true },
];

for (const c of unstructured) {
  test(`unstructured values: ${c.name}`, () => {
    const value = run(c.source, { a: unstructuredValue(object) });
    assert.deepEqual(value instanceof ErrorValue ? { error: value.message } : value, c.want);
  });
}
