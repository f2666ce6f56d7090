import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareKubeVersions } from './version-priority.js';

test('versions sort as upstream documents its kube-aware order', () => {
  const shuffled = ['foo10', 'v1', 'v11alpha2', 'v3beta1', 'v2', 'foo1', 'v12alpha1', 'v10beta3', 'v10', 'v11beta2'];
  assert.deepEqual(shuffled.sort(compareKubeVersions), ['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo1', 'foo10']);
});

const pairs: [a: string, b: string, first: string][] = [
  ['v1', 'v1beta1', 'v1'],
  ['v1beta2', 'v1beta1', 'v1beta2'],
  ['v2beta1', 'v1beta2', 'v2beta1'],
  ['v1alpha1', 'v1beta1', 'v1beta1'],
  ['v1', 'v1.0', 'v1'],
  ['V1', 'v1alpha1', 'v1alpha1'],
];
for (const [a, b, first] of pairs) {
  test(`${a} and ${b}: ${first} first`, () => {
    assert.equal([a, b].sort(compareKubeVersions)[0], first);
    assert.equal([b, a].sort(compareKubeVersions)[0], first);
  });
}
