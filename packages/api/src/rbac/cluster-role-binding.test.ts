import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Subject } from '../common/subject.js';
import { create, k8s, messages, summary, update } from '../testing/harness.js';
import { clusterRoleBindingDefinition, type ClusterRoleBinding } from './cluster-role-binding.js';

const rbac = 'rbac.authorization.plat.io';
const binding = (roleRef: Partial<ClusterRoleBinding['roleRef']>, ...subjects: Subject[]): ClusterRoleBinding => ({
  metadata: { name: 'admins' },
  roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'cluster-admin', ...roleRef },
  subjects,
});

test('cluster role binding: a valid binding passes', () => {
  const { errors } = create(
    clusterRoleBindingDefinition,
    binding({}, { kind: 'Group', name: 'system:masters' }, { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' }),
  );
  assert.deepEqual(errors, []);
});

const invalidCases: { name: string; object: ClusterRoleBinding; want: string[] }[] = [
  {
    name: 'a Role cannot be bound cluster-wide',
    object: binding({ kind: 'Role' }),
    want: ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'],
  },
  {
    name: 'a service account subject needs its namespace',
    object: binding({}, { kind: 'ServiceAccount', name: 'builder' }),
    want: ['subjects[0].namespace: Required value'],
  },
  {
    name: 'a roleRef without name and kind',
    object: binding({ kind: '', name: '' }),
    want: ['roleRef.kind: Unsupported value: "": supported values: "ClusterRole"', 'roleRef.name: Required value'],
  },
];
for (const c of invalidCases) {
  test(`cluster role binding validate: ${c.name}`, () => assert.deepEqual(messages(create(clusterRoleBindingDefinition, c.object).errors), c.want));
}

test('cluster role binding validate: a missing roleRef gets the RBAC group, as upstream', () => {
  const object = { metadata: { name: 'x' } } as ClusterRoleBinding;
  assert.deepEqual(summary(create(clusterRoleBindingDefinition, object).errors), [
    'FieldValueNotSupported roleRef.kind',
    'FieldValueRequired roleRef.name',
  ]);
});

test('cluster role binding validate: the group follows the domain', () => {
  const object = binding({ apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' });
  assert.deepEqual(create(clusterRoleBindingDefinition, object, k8s).errors, []);
  assert.deepEqual(summary(create(clusterRoleBindingDefinition, object).errors), [
    'FieldValueNotSupported roleRef.apiGroup',
    'FieldValueNotSupported subjects[0].apiGroup',
  ]);
});

test('cluster role binding update: roleRef cannot change', () => {
  const old = binding({});
  assert.deepEqual(summary(update(clusterRoleBindingDefinition, binding({ name: 'view' }), old).errors), ['FieldValueInvalid roleRef']);
  assert.deepEqual(update(clusterRoleBindingDefinition, binding({}, { kind: 'User', name: 'jane' }), old).errors, []);
});

test('cluster role binding: columns and registration', () => {
  assert.deepEqual(clusterRoleBindingDefinition.tableColumns.map((c) => c.name), ['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
  assert.equal(clusterRoleBindingDefinition.namespaced, false);
  assert.equal(clusterRoleBindingDefinition.allowCreateOnUpdate, true);
});
