import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { keyType } from './storage-metrics.js';

describe('keyType: the type label of a storage key', () => {
  const cases: [unknown, string][] = [
    ['/core/serviceaccounts/ns/name', 'serviceaccounts'],
    ['/core/namespaces/name', 'namespaces'],
    ['/rbac.authorization.k8s.io/roles/ns/name', 'roles.rbac.authorization.k8s.io'],
    ['/core/pods/', 'pods'],
    ['/core/pods', 'pods'],
    ['/core/', ''],
    ['/core', ''],
    ['', ''],
    ['//pods/x', ''],
    [undefined, ''],
    [42, ''],
  ];
  for (const [key, want] of cases) it(`${JSON.stringify(key)} -> ${JSON.stringify(want)}`, () => assert.equal(keyType(key), want));
});
