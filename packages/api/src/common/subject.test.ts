import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSubject, type Subject } from './subject.js';

const rbac = 'rbac.authorization.plat.io';

// apiGroup and namespace are omitempty upstream: an empty one is no key at all once defaulted.
const cases: { name: string; input: Subject; want: Subject }[] = [
  { name: 'ServiceAccount without apiGroup', input: { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }, want: { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' } },
  {
    name: 'ServiceAccount with an empty apiGroup',
    input: { kind: 'ServiceAccount', name: 'sa', namespace: 'ns', apiGroup: '' },
    want: { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
  },
  { name: 'ServiceAccount with an empty namespace', input: { kind: 'ServiceAccount', name: 'sa', namespace: '' }, want: { kind: 'ServiceAccount', name: 'sa' } },
  {
    name: 'ServiceAccount with null apiGroup and namespace',
    input: { kind: 'ServiceAccount', name: 'sa', apiGroup: null, namespace: null } as unknown as Subject,
    want: { kind: 'ServiceAccount', name: 'sa' },
  },
  { name: 'User gets the RBAC group', input: { kind: 'User', name: 'jane' }, want: { kind: 'User', name: 'jane', apiGroup: rbac } },
  { name: 'Group with an empty apiGroup', input: { kind: 'Group', name: 'devs', apiGroup: '' }, want: { kind: 'Group', name: 'devs', apiGroup: rbac } },
  { name: 'User with an empty namespace', input: { kind: 'User', name: 'jane', namespace: '' }, want: { kind: 'User', name: 'jane', apiGroup: rbac } },
  { name: 'a given apiGroup is kept', input: { kind: 'User', name: 'jane', apiGroup: 'example.com' }, want: { kind: 'User', name: 'jane', apiGroup: 'example.com' } },
  { name: 'an unknown kind gets no apiGroup', input: { kind: 'Robot', name: 'r2', apiGroup: '' }, want: { kind: 'Robot', name: 'r2' } },
];
for (const c of cases) {
  test(`subject default: ${c.name}`, () => {
    const subject = structuredClone(c.input);
    defaultSubject(subject, 'plat.io');
    assert.deepEqual(subject, c.want);
  });
}
