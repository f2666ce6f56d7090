import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterRoleBindingDefinition } from '../rbac/cluster-role-binding.js';
import { roleBindingDefinition } from '../rbac/role-binding.js';
import { create, k8s, messages } from '../testing/harness.js';
import { defaultRoleRef, type RoleRef } from './role-ref.js';

const rbac = 'rbac.authorization.plat.io';

// Upstream's roleRef is a struct: absent or null, it is an empty one, and its apiGroup is defaulted.
const defaultCases: { name: string; input: RoleRef | undefined | null; want: Partial<RoleRef> }[] = [
  { name: 'absent', input: undefined, want: { apiGroup: rbac } },
  { name: 'null', input: null, want: { apiGroup: rbac } },
  { name: 'empty', input: {} as RoleRef, want: { apiGroup: rbac } },
  { name: 'an empty apiGroup', input: { apiGroup: '', kind: 'ClusterRole', name: 'view' }, want: { apiGroup: rbac, kind: 'ClusterRole', name: 'view' } },
  { name: 'another apiGroup is kept', input: { apiGroup: 'example.com', kind: 'Role', name: 'r' }, want: { apiGroup: 'example.com', kind: 'Role', name: 'r' } },
];
for (const c of defaultCases) {
  test(`role ref default: ${c.name}`, () => assert.deepEqual(defaultRoleRef(structuredClone(c.input), 'plat.io'), c.want));
}

// A binding without a roleRef is refused for its kind and name only, as upstream (no apiGroup error).
const missingCases = [
  {
    name: 'ClusterRoleBinding without roleRef',
    run: () => create(clusterRoleBindingDefinition, { metadata: { name: 'x' } } as never),
    want: ['roleRef.kind: Unsupported value: "": supported values: "ClusterRole"', 'roleRef.name: Required value'],
  },
  {
    name: 'ClusterRoleBinding with a null roleRef, under k8s.io',
    run: () => create(clusterRoleBindingDefinition, { metadata: { name: 'x' }, roleRef: null } as never, k8s),
    want: ['roleRef.kind: Unsupported value: "": supported values: "ClusterRole"', 'roleRef.name: Required value'],
  },
  {
    name: 'RoleBinding without roleRef',
    run: () => create(roleBindingDefinition, { metadata: { name: 'x', namespace: 'ns' } } as never),
    want: ['roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole"', 'roleRef.name: Required value'],
  },
];
for (const c of missingCases) {
  test(`role ref validate: ${c.name}`, () => assert.deepEqual(messages(c.run().errors), c.want));
}
