import { test } from 'node:test';
import assert from 'node:assert/strict';
import { authorize } from './authorize.js';
import {
  bindCheckAttributes,
  breakdownRule,
  compactRules,
  compactString,
  confirmAggregationRuleAllowed,
  confirmNoEscalation,
  covers,
  escalateCheckAttributes,
  escalationAllowed,
} from './escalation.js';
import { RbacIndex } from './rbac-index.js';
import { user } from './testing.js';
import type { PolicyRule } from '@plat/apimachinery';

const rbac = 'rbac.authorization.plat.io';
const alice = user('alice');
const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const u = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

/** An index where alice holds `cluster` everywhere and `inDev` in namespace dev. */
function holding(cluster: PolicyRule[], inDev: PolicyRule[] = []): RbacIndex {
  const index = new RbacIndex();
  index.upsert('ClusterRole', { metadata: { name: 'held' }, rules: cluster });
  index.upsert('ClusterRoleBinding', { metadata: { name: 'held' }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'held' }, subjects: [{ kind: 'User', name: 'alice' }] });
  index.upsert('Role', { metadata: { name: 'held', namespace: 'dev' }, rules: inDev });
  index.upsert('RoleBinding', { metadata: { name: 'held', namespace: 'dev' }, roleRef: { apiGroup: rbac, kind: 'Role', name: 'held' }, subjects: [{ kind: 'User', name: 'alice' }] });
  return index;
}

const header = 'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n';

const cases: { name: string; held: PolicyRule[]; inDev?: PolicyRule[]; namespace?: string; granting: PolicyRule[]; missing?: string[] }[] = [
  { name: 'granting what one holds is allowed', held: [r(['get', 'list'], [''], ['pods'])], granting: [r(['get'], [''], ['pods'])] },
  { name: 'granting nothing is allowed', held: [], granting: [] },
  { name: 'a rule without verbs grants nothing', held: [], granting: [r([], [''], ['pods'])] },
  { name: 'a verb one lacks is refused', held: [r(['get', 'list'], [''], ['pods'])], granting: [r(['get', 'delete'], [''], ['pods'])], missing: ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'] },
  {
    name: 'missing pieces of one resource are compacted, lines sorted',
    held: [],
    granting: [r(['get', 'list', 'watch'], [''], ['secrets', 'configmaps'])],
    missing: ['{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list" "watch"]}', '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}'],
  },
  { name: '"*" verbs, groups and resources cover everything', held: [r(['*'], ['*'], ['*'])], granting: [r(['escalate', 'get'], ['apps', ''], ['deployments/scale', 'pods'])] },
  { name: 'granting "*" needs "*"', held: [r(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'], [''], ['pods'])], granting: [r(['*'], [''], ['pods'])], missing: ['{APIGroups:[""], Resources:["pods"], Verbs:["*"]}'] },
  { name: 'owning a resource does not cover its subresources', held: [r(['get'], [''], ['pods'])], granting: [r(['get'], [''], ['pods/log'])], missing: ['{APIGroups:[""], Resources:["pods/log"], Verbs:["get"]}'] },
  { name: 'owning */subresource covers that subresource of any resource', held: [r(['update'], ['apps'], ['*/scale'])], granting: [r(['update'], ['apps'], ['deployments/scale', 'statefulsets/scale'])] },
  { name: 'owning resources "*" covers subresources', held: [r(['get'], [''], ['*'])], granting: [r(['get'], [''], ['pods/log'])] },
  { name: 'another group is not covered', held: [r(['get'], [''], ['deployments'])], granting: [r(['get'], ['apps'], ['deployments'])], missing: ['{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}'] },
  { name: 'named access covers the same names', held: [r(['get'], [''], ['configmaps'], ['a', 'b'])], granting: [r(['get'], [''], ['configmaps'], ['a'])] },
  {
    name: 'named access does not cover all names',
    held: [r(['get'], [''], ['configmaps'], ['a'])],
    granting: [r(['get'], [''], ['configmaps'])],
    missing: ['{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}'],
  },
  {
    name: 'named pieces are listed with their names',
    held: [],
    granting: [r(['get', 'update'], [''], ['configmaps'], ['a'])],
    missing: ['{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get" "update"]}'],
  },
  { name: 'URLs are covered by a trailing *', held: [u(['get'], ['/apis/*'])], granting: [u(['get'], ['/apis/apps', '/apis/batch/v1'])] },
  { name: 'URLs not covered are listed', held: [u(['get'], ['/healthz'])], granting: [u(['get', 'post'], ['/healthz'])], missing: ['{NonResourceURLs:["/healthz"], Verbs:["post"]}'] },
  { name: 'namespace permissions count in their namespace', held: [], inDev: [r(['get'], [''], ['pods'])], namespace: 'dev', granting: [r(['get'], [''], ['pods'])] },
  { name: 'namespace permissions do not count for a cluster-wide grant', held: [], inDev: [r(['get'], [''], ['pods'])], namespace: '', granting: [r(['get'], [''], ['pods'])], missing: ['{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'] },
  { name: 'rules are covered one owner rule at a time', held: [r(['get'], [''], ['pods']), r(['list'], [''], ['pods'])], granting: [r(['get', 'list'], [''], ['pods'])] },
];

for (const testCase of cases) {
  test(`confirmNoEscalation: ${testCase.name}`, () => {
    const result = confirmNoEscalation(holding(testCase.held, testCase.inDev), alice, testCase.namespace ?? 'default', testCase.granting);
    if (!testCase.missing) return assert.deepEqual(result, { ok: true });
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.message, header + testCase.missing.join('\n'));
    assert.deepEqual(result.missing.map(compactString), testCase.missing);
  });
}

test('confirmNoEscalation: resolution errors of the user are appended', () => {
  const index = holding([]);
  index.upsert('RoleBinding', { metadata: { name: 'broken', namespace: 'dev' }, roleRef: { apiGroup: rbac, kind: 'Role', name: 'gone' }, subjects: [{ kind: 'User', name: 'alice' }] });
  const result = confirmNoEscalation(index, alice, 'dev', [r(['get'], [''], ['pods'])]);
  assert.equal(result.ok, false);
  assert.equal(
    !result.ok && result.message,
    `${header}{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [role.rbac.authorization.plat.io "gone" not found]`,
  );
});

test('confirmNoEscalation: the groups are listed as Go quotes them', () => {
  const result = confirmNoEscalation(new RbacIndex(), user('bob', ['a', 'b "c"']), '', [r(['get'], [''], ['pods'])]);
  assert.equal(!result.ok && result.message.split('\n')[0], 'user "bob" (groups=["a" "b \\"c\\""]) is attempting to grant RBAC permissions not currently held:');
});

test('breakdownRule: one piece per group, resource, verb and name; URLs per verb', () => {
  assert.deepEqual(breakdownRule({ verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['pods'], resourceNames: ['a'] }), [
    { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['list'], resourceNames: ['a'] },
    { apiGroups: ['apps'], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
    { apiGroups: ['apps'], resources: ['pods'], verbs: ['list'], resourceNames: ['a'] },
  ]);
  assert.deepEqual(breakdownRule(u(['get'], ['/a', '/b'])), [u(['get'], ['/a']), u(['get'], ['/b'])]);
});

test('covers and compactRules: the pieces left and their compact form', () => {
  const { covered, missing } = covers([r(['get'], [''], ['pods'])], [r(['get', 'list'], [''], ['pods', 'secrets'])]);
  assert.equal(covered, false);
  assert.deepEqual(compactRules(missing).map(compactString).sort(), [
    '{APIGroups:[""], Resources:["pods"], Verbs:["list"]}',
    '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
  ]);
});

test('escalationAllowed: only system:masters skips the checks', () => {
  assert.equal(escalationAllowed(user('root', ['system:masters'])), true);
  assert.equal(escalationAllowed(alice), false);
});

test('escalateCheckAttributes: upstream RoleEscalationAuthorized asks for escalate on the role itself', () => {
  const request = { isResourceRequest: true, apiGroup: rbac, resource: 'roles', namespace: 'dev', name: 'r' };
  assert.deepEqual(escalateCheckAttributes('plat.io', alice, request), {
    user: alice,
    verb: 'escalate',
    apiGroup: rbac,
    apiVersion: '*',
    resource: 'roles',
    subresource: '',
    name: 'r',
    namespace: 'dev',
    isResourceRequest: true,
    path: '',
  });
  assert.equal(escalateCheckAttributes('plat.io', alice, { ...request, resource: 'rolebindings' }), undefined);
  assert.equal(escalateCheckAttributes('k8s.io', alice, request), undefined);

  const index = holding([{ verbs: ['escalate'], apiGroups: [rbac], resources: ['roles'], resourceNames: ['r'] }]);
  assert.equal(authorize(index, escalateCheckAttributes('plat.io', alice, request)!).decision, 'Allow');
  assert.equal(authorize(index, escalateCheckAttributes('plat.io', alice, { ...request, name: 'other' })!).decision, 'NoOpinion');
});

test('bindCheckAttributes: upstream BindingAuthorized asks for bind on the referenced role, in the binding namespace', () => {
  assert.deepEqual(bindCheckAttributes(alice, { apiGroup: rbac, kind: 'ClusterRole', name: 'admin' }, 'dev'), {
    user: alice,
    verb: 'bind',
    apiGroup: rbac,
    apiVersion: '*',
    resource: 'clusterroles',
    subresource: '',
    name: 'admin',
    namespace: 'dev',
    isResourceRequest: true,
    path: '',
  });
  assert.equal(bindCheckAttributes(alice, { apiGroup: rbac, kind: 'Role', name: 'r' }, 'dev')?.resource, 'roles');
  assert.equal(bindCheckAttributes(alice, { apiGroup: rbac, kind: 'User', name: 'r' }, 'dev'), undefined);

  // bind on clusterroles/admin granted in dev only: a RoleBinding in dev may bind it, a ClusterRoleBinding may not.
  const index = holding([], [{ verbs: ['bind'], apiGroups: [rbac], resources: ['clusterroles'], resourceNames: ['admin'] }]);
  const roleRef = { apiGroup: rbac, kind: 'ClusterRole', name: 'admin' };
  assert.equal(authorize(index, bindCheckAttributes(alice, roleRef, 'dev')!).decision, 'Allow');
  assert.equal(authorize(index, bindCheckAttributes(alice, roleRef, '')!).decision, 'NoOpinion');
});

test('confirmAggregationRuleAllowed: an aggregationRule needs cluster-admin powers', () => {
  assert.deepEqual(confirmAggregationRuleAllowed(holding([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, u(['*'], ['*'])]), alice, ''), { ok: true });
  const refused = confirmAggregationRuleAllowed(holding([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), alice, '');
  assert.equal(!refused.ok && refused.message, 'must have cluster-admin privileges to use the aggregationRule');
  assert.deepEqual(!refused.ok && refused.missing.map(compactString), ['{NonResourceURLs:["*"], Verbs:["*"]}']);
});
