import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readInt64, readPath, readString, validateScaleSpec, validateScaleStatus, writePath } from './scale.js';

const object = { spec: { replicas: 3, ratio: 1.5, text: 'x', none: null }, status: 'flat' };

const readCases: { name: string; read: () => unknown; want: unknown }[] = [
  { name: 'a field', read: () => readPath(object, '.spec.replicas'), want: { found: true, value: 3 } },
  { name: 'without the leading dot', read: () => readPath(object, 'spec.replicas'), want: { found: true, value: 3 } },
  { name: 'missing', read: () => readPath(object, '.spec.missing.deeper'), want: { found: false, value: undefined } },
  { name: 'below a null', read: () => readPath(object, '.spec.none.x'), want: { found: false, value: undefined } },
  {
    name: 'below a scalar',
    read: () => readPath(object, '.status.replicas'),
    want: { found: false, value: undefined, error: '.status.replicas accessor error: flat is of the type string, expected map[string]interface{}' },
  },
  { name: 'an int64', read: () => readInt64(object, '.spec.replicas'), want: { found: true, value: 3 } },
  {
    name: 'not an int64',
    read: () => readInt64(object, '.spec.ratio'),
    want: { found: false, value: undefined, error: '.spec.ratio accessor error: 1.5 is of the type float64, expected int64' },
  },
  {
    name: 'not a string',
    read: () => readString(object, '.spec.replicas'),
    want: { found: false, value: undefined, error: '.spec.replicas accessor error: 3 is of the type int64, expected string' },
  },
];

for (const c of readCases) test(`read: ${c.name}`, () => assert.deepEqual(c.read(), c.want));

test('writePath: makes the objects on the way, refuses to go through a scalar', () => {
  const target: Record<string, unknown> = { status: 'flat' };
  writePath(target, '.spec.replicas', 5);
  assert.deepEqual(target, { status: 'flat', spec: { replicas: 5 } });
  assert.throws(() => writePath(target, '.status.replicas', 1), { message: 'value cannot be set because .status is not a map[string]interface{}' });
});

const scale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

const scaleCases: { name: string; object: unknown; spec: string[]; status: string[] }[] = [
  { name: 'absent paths are zero', object: {}, spec: [], status: [] },
  { name: 'valid', object: { spec: { replicas: 2 }, status: { replicas: 1, selector: 'a=b' } }, spec: [], status: [] },
  {
    name: 'negative and too large',
    object: { spec: { replicas: -1 }, status: { replicas: 2 ** 31 } },
    spec: ['.spec.replicas: Invalid value: -1: should be a non-negative integer'],
    status: ['.status.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647'],
  },
  {
    name: 'wrong types',
    object: { spec: { replicas: 'two' }, status: { replicas: 1.5, selector: 3 } },
    spec: ['.spec.replicas: Invalid value: 0: .spec.replicas accessor error: two is of the type string, expected int64'],
    status: [
      '.status.replicas: Invalid value: 0: .status.replicas accessor error: 1.5 is of the type float64, expected int64',
      '.status.selector: Invalid value: "": .status.selector accessor error: 3 is of the type int64, expected string',
    ],
  },
];

for (const c of scaleCases) {
  test(`validateScaleSpec and validateScaleStatus: ${c.name}`, () => {
    assert.deepEqual(validateScaleSpec(c.object, scale).map(String), c.spec);
    assert.deepEqual(validateScaleStatus(c.object, scale).map(String), c.status);
  });
}
