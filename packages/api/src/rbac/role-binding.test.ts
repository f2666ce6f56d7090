import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Subject } from '../common/subject.js';
import { create, k8s, messages, summary, update } from '../testing/harness.js';
import { roleBindingDefinition, type RoleBinding } from './role-binding.js';

const rbac = 'rbac.authorization.plat.io';
const binding = (roleRef: Partial<RoleBinding['roleRef']>, ...subjects: Subject[]): RoleBinding => ({
  metadata: { name: 'read-pods', namespace: 'default' },
  roleRef: { apiGroup: rbac, kind: 'Role', name: 'reader', ...roleRef },
  subjects,
});

test('role binding: defaults fill the API groups', () => {
  const input: RoleBinding = {
    metadata: { name: 'b', namespace: 'default' },
    roleRef: { kind: 'ClusterRole', name: 'view' } as RoleBinding['roleRef'],
    subjects: [
      { kind: 'User', name: 'jane' },
      { kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder' },
    ],
  };
  const { object, errors } = create(roleBindingDefinition, input);
  assert.deepEqual(errors, []);
  assert.equal(object.roleRef.apiGroup, rbac);
  assert.deepEqual(object.subjects?.map((s) => s.apiGroup), [rbac, rbac, undefined]);
  // omitempty upstream: a ServiceAccount subject has no apiGroup key.
  assert.equal('apiGroup' in object.subjects![2]!, false);
  const under = create(roleBindingDefinition, input, k8s).object;
  assert.equal(under.roleRef.apiGroup, 'rbac.authorization.k8s.io');
  assert.deepEqual(under.subjects?.map((s) => s.apiGroup), ['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', undefined]);
});

const invalidCases: { name: string; object: RoleBinding; want: string[] }[] = [
  {
    name: 'a roleRef in another group',
    object: binding({ apiGroup: 'example.com' }),
    want: ['roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.plat.io"'],
  },
  {
    name: 'the k8s.io group under plat.io',
    object: binding({ apiGroup: 'rbac.authorization.k8s.io' }),
    want: ['roleRef.apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: "rbac.authorization.plat.io"'],
  },
  {
    name: 'a roleRef of another kind',
    object: binding({ kind: 'Binding' }),
    want: ['roleRef.kind: Unsupported value: "Binding": supported values: "Role", "ClusterRole"'],
  },
  { name: 'a roleRef without a name', object: binding({ name: '' }), want: ['roleRef.name: Required value'] },
  {
    name: 'a roleRef name with a slash',
    object: binding({ name: 'a/b' }),
    want: ['FieldValueInvalid roleRef.name'],
  },
  {
    name: 'a subject of an unknown kind',
    object: binding({}, { kind: 'Robot', name: 'r2' }),
    want: ['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'],
  },
  {
    name: 'a subject without a name',
    object: binding({}, { kind: 'User', name: '' }),
    want: ['subjects[0].name: Required value'],
  },
  {
    name: 'a service account in the RBAC group',
    object: binding({}, { kind: 'ServiceAccount', name: 'builder', apiGroup: rbac }),
    want: ['subjects[0].apiGroup: Unsupported value: "rbac.authorization.plat.io": supported values: ""'],
  },
  {
    name: 'a service account name that is not a DNS subdomain',
    object: binding({}, { kind: 'ServiceAccount', name: 'Builder_1' }),
    want: ['FieldValueInvalid subjects[0].name'],
  },
  {
    name: 'a user in another group',
    object: binding({}, { kind: 'User', name: 'jane', apiGroup: 'example.com' }),
    want: ['subjects[0].apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.plat.io"'],
  },
  {
    name: 'errors of several subjects',
    object: binding({}, { kind: 'User', name: 'ok' }, { kind: 'Group', name: '' }, { kind: 'Robot', name: 'x' }),
    want: ['subjects[1].name: Required value', 'subjects[2].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'],
  },
];
for (const c of invalidCases) {
  test(`role binding validate: ${c.name}`, () => {
    const { errors } = create(roleBindingDefinition, c.object);
    const got = c.want.every((w) => w.includes(':')) ? messages(errors) : summary(errors);
    assert.deepEqual(got, c.want);
  });
}

test('role binding validate: a service account without a namespace is the binding’s own', () => {
  assert.deepEqual(create(roleBindingDefinition, binding({}, { kind: 'ServiceAccount', name: 'builder' })).errors, []);
});

test('role binding update: roleRef cannot change, subjects can', () => {
  const old = create(roleBindingDefinition, binding({}, { kind: 'User', name: 'jane' })).object;
  assert.deepEqual(update(roleBindingDefinition, binding({}, { kind: 'User', name: 'joe' }), old).errors, []);
  const { errors } = update(roleBindingDefinition, binding({ name: 'writer' }), old);
  assert.deepEqual(messages(errors), [
    'roleRef: Invalid value: {"apiGroup":"rbac.authorization.plat.io","kind":"Role","name":"writer"}: cannot change roleRef',
  ]);
  assert.deepEqual(summary(update(roleBindingDefinition, binding({ kind: 'ClusterRole' }), old).errors), ['FieldValueInvalid roleRef']);
});

test('role binding update: a defaulted apiGroup is no change', () => {
  const old = create(roleBindingDefinition, binding({})).object;
  const input = binding({});
  input.roleRef.apiGroup = '';
  assert.deepEqual(update(roleBindingDefinition, input, old).errors, []);
});

test('role binding: columns NAME, ROLE, AGE and wide USERS, GROUPS, SERVICEACCOUNTS', () => {
  const object = binding(
    { kind: 'ClusterRole', name: 'view' },
    { kind: 'User', name: 'jane' },
    { kind: 'User', name: 'joe' },
    { kind: 'Group', name: 'devs' },
    { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
  );
  object.metadata.creationTimestamp = new Date(Date.now() - 5 * 60_000).toISOString();
  const columns = roleBindingDefinition.tableColumns;
  assert.deepEqual(columns.map((c) => [c.name, c.priority]), [
    ['Name', 0],
    ['Role', 0],
    ['Age', 0],
    ['Users', 1],
    ['Groups', 1],
    ['ServiceAccounts', 1],
  ]);
  assert.deepEqual(columns.map((c) => c.value(object, { domain: 'plat.io' })), ['read-pods', 'ClusterRole/view', '5m', 'jane, joe', 'devs', 'ci/builder']);
});

test('role binding: registration as upstream', () => {
  assert.equal(roleBindingDefinition.namespaced, true);
  assert.equal(roleBindingDefinition.allowCreateOnUpdate, true);
  assert.ok(roleBindingDefinition.validateName('a/b', false).length > 0);
});
