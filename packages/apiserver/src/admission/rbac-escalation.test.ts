import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@plat/registry';
import { onlyGarbageCollectionFields } from './rbac-escalation.js';

const old: KubeObject = {
  apiVersion: 'rbac.authorization.plat.io/v1',
  kind: 'Role',
  metadata: { name: 'r', namespace: 'ns', uid: 'u', resourceVersion: '5', generation: 1, labels: { a: 'b' } },
  rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
};

const cases: { name: string; change: (o: KubeObject) => void; want: boolean }[] = [
  { name: 'nothing', change: () => {}, want: true },
  { name: 'finalizers', change: (o) => (o.metadata.finalizers = ['x']), want: true },
  { name: 'owner references', change: (o) => (o.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Namespace', name: 'ns', uid: 'n' }]), want: true },
  { name: 'managedFields and resourceVersion', change: (o) => Object.assign(o.metadata, { managedFields: [{}], resourceVersion: '6' }), want: true },
  { name: 'rules', change: (o) => (o.rules = []), want: false },
  { name: 'labels', change: (o) => (o.metadata.labels = {}), want: false },
];

for (const { name, change, want } of cases) {
  test(`only garbage-collection fields change: ${name} -> ${want}`, () => {
    const object = structuredClone(old);
    delete object.apiVersion;
    change(object);
    assert.equal(onlyGarbageCollectionFields(object, old), want);
  });
}
