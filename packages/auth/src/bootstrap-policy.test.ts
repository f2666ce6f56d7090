import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateClusterRole } from './aggregation.js';
import { authorize, privilegedGroupAuthorizer } from './authorize.js';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { RbacIndex } from './rbac-index.js';
import { rulesReview } from './rules-review.js';
import { nonResourceAttributes, resourceAttributes, user } from './testing.js';
import type { ClusterRole } from './types.js';

const controllerRoles = ['system:controller:clusterrole-aggregation-controller', 'system:controller:crd-cleanup-controller', 'system:controller:generic-garbage-collector',
  'system:controller:namespace-controller', 'system:controller:node-controller', 'system:controller:service-account-controller'];
const names = (controllerManager: string): string[] => ['cluster-admin', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'admin', 'edit', 'view',
  'system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view', 'system:node', 'system:kubelet-api-admin', controllerManager, ...controllerRoles];

const byName = (roles: ClusterRole[], name: string): ClusterRole => roles.find((r) => r.metadata.name === name)!;

const domains: [string, { rbac: string; label: string; annotation: string; authorization: string; networking: string; prefix: string }][] = [
  ['plat.io', { rbac: 'rbac.authorization.plat.io', label: 'plat.io/bootstrapping', annotation: 'rbac.authorization.plat.io/autoupdate', authorization: 'authorization.plat.io', networking: 'networking.plat.io', prefix: 'plat' }],
  ['k8s.io', { rbac: 'rbac.authorization.k8s.io', label: 'kubernetes.io/bootstrapping', annotation: 'rbac.authorization.kubernetes.io/autoupdate', authorization: 'authorization.k8s.io', networking: 'networking.k8s.io', prefix: 'kube' }],
];

for (const [domain, expected] of domains) {
  test(`bootstrapPolicy(${domain}): names, labels and annotations`, () => {
    const { clusterRoles, clusterRoleBindings } = bootstrapPolicy(domain);
    const controllerManager = `system:${expected.prefix}-controller-manager`;
    assert.deepEqual(clusterRoles.map((r) => r.metadata.name), names(controllerManager));
    for (const object of [...clusterRoles, ...clusterRoleBindings]) {
      assert.equal(object.apiVersion, `${expected.rbac}/v1`);
      assert.equal(object.metadata.labels?.[expected.label], 'rbac-defaults');
      assert.deepEqual(object.metadata.annotations, { [expected.annotation]: 'true' });
    }
    assert.deepEqual(byName(clusterRoles, 'edit').metadata.labels, { [`${expected.rbac}/aggregate-to-admin`]: 'true', [expected.label]: 'rbac-defaults' });
    assert.deepEqual(byName(clusterRoles, 'view').aggregationRule, { clusterRoleSelectors: [{ matchLabels: { [`${expected.rbac}/aggregate-to-view`]: 'true' } }] });
    assert.equal(byName(clusterRoles, 'admin').rules, undefined);
    assert.deepEqual(byName(clusterRoles, 'system:basic-user').rules?.[0]?.apiGroups, [expected.authorization]);
    assert.ok(byName(clusterRoles, 'system:aggregate-to-view').rules?.some((r) => r.apiGroups?.includes(expected.networking)));
    assert.ok(byName(clusterRoles, 'system:aggregate-to-view').rules?.some((r) => r.apiGroups?.includes('apps')));
    assert.deepEqual(
      clusterRoleBindings.map((b) => [b.metadata.name, b.roleRef, b.subjects?.map((s) => `${s.kind}:${s.apiGroup}:${s.name}`)]),
      [
        ['cluster-admin', { apiGroup: expected.rbac, kind: 'ClusterRole', name: 'cluster-admin' }, [`Group:${expected.rbac}:system:masters`]],
        ['system:discovery', { apiGroup: expected.rbac, kind: 'ClusterRole', name: 'system:discovery' }, [`Group:${expected.rbac}:system:authenticated`]],
        ['system:basic-user', { apiGroup: expected.rbac, kind: 'ClusterRole', name: 'system:basic-user' }, [`Group:${expected.rbac}:system:authenticated`]],
        ['system:public-info-viewer', { apiGroup: expected.rbac, kind: 'ClusterRole', name: 'system:public-info-viewer' },
          [`Group:${expected.rbac}:system:authenticated`, `Group:${expected.rbac}:system:unauthenticated`]],
        [controllerManager, { apiGroup: expected.rbac, kind: 'ClusterRole', name: controllerManager }, [`User:${expected.rbac}:${controllerManager}`]],
        ['system:node', { apiGroup: expected.rbac, kind: 'ClusterRole', name: 'system:node' }, [`Group:${expected.rbac}:system:nodes`]],
        ...controllerRoles.map((role) => [
          role,
          { apiGroup: expected.rbac, kind: 'ClusterRole', name: role },
          [`ServiceAccount:undefined:${role.slice('system:controller:'.length)}`],
        ]),
      ],
    );
  });
}

test('bootstrapPolicy: each call returns fresh objects', () => {
  const a = bootstrapPolicy('plat.io');
  a.clusterRoles[0]!.rules!.push({ verbs: ['x'] });
  assert.equal(bootstrapPolicy('plat.io').clusterRoles[0]!.rules!.length, 2);
});

/** The bootstrap policy loaded, with admin, edit and view aggregated as the controller would settle them. */
function bootstrapped(): RbacIndex {
  const index = new RbacIndex();
  const { clusterRoles, clusterRoleBindings } = bootstrapPolicy('plat.io');
  for (const name of ['view', 'edit', 'admin']) {
    const role = byName(clusterRoles, name);
    role.rules = aggregateClusterRole(role, clusterRoles);
  }
  for (const role of clusterRoles) index.upsert('ClusterRole', role);
  for (const binding of clusterRoleBindings) index.upsert('ClusterRoleBinding', binding);
  return index;
}

const authenticated = user('alice', ['system:authenticated']);
const anonymous = user('system:anonymous', ['system:unauthenticated']);
const root = user('root', ['system:masters', 'system:authenticated']);
const bindIn = (index: RbacIndex, role: string, namespace: string): void =>
  index.upsert('RoleBinding', {
    metadata: { name: `alice-${role}`, namespace },
    roleRef: { apiGroup: 'rbac.authorization.plat.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'User', name: 'alice' }],
  });

const controllerManager = user('system:plat-controller-manager', ['system:authenticated']);
const controllerAccount = (name: string) =>
  user(`system:serviceaccount:plat-system:${name}`, ['system:serviceaccounts', 'system:serviceaccounts:plat-system', 'system:authenticated']);
const nodeAgent = user('system:node:worker-1', ['system:nodes', 'system:authenticated']);
const lease = (name: string) => ({ group: 'coordination.plat.io', resource: 'leases', namespace: 'plat-system', name });

const endToEnd: [string, (index: RbacIndex) => ReturnType<typeof authorize>, 'Allow' | 'NoOpinion', string?][] = [
  ['the controller-manager renews its own lease', (i) => authorize(i, resourceAttributes(controllerManager, 'update', lease('plat-controller-manager'))), 'Allow',
    'RBAC: allowed by ClusterRoleBinding "system:plat-controller-manager" of ClusterRole "system:plat-controller-manager" to User "system:plat-controller-manager"'],
  ["the controller-manager cannot update another component's lease", (i) => authorize(i, resourceAttributes(controllerManager, 'update', lease('other'))), 'NoOpinion'],
  ['the controller-manager watches everything', (i) => authorize(i, resourceAttributes(controllerManager, 'watch', { group: 'apps', resource: 'deployments' })), 'Allow'],
  ['the controller-manager gets its controllers tokens', (i) => authorize(i, resourceAttributes(controllerManager, 'create', { resource: 'serviceaccounts', subresource: 'token', namespace: 'plat-system', name: 'namespace-controller' })), 'Allow'],
  ['the controller-manager itself deletes nothing', (i) => authorize(i, resourceAttributes(controllerManager, 'delete', { resource: 'namespaces', name: 'x' })), 'NoOpinion'],
  ['the garbage collector deletes any object', (i) => authorize(i, resourceAttributes(controllerAccount('generic-garbage-collector'), 'delete', { group: 'rbac.authorization.plat.io', resource: 'roles', namespace: 'x', name: 'r' })), 'Allow',
    'RBAC: allowed by ClusterRoleBinding "system:controller:generic-garbage-collector" of ClusterRole "system:controller:generic-garbage-collector" to ServiceAccount "generic-garbage-collector/plat-system"'],
  ['the garbage collector creates nothing', (i) => authorize(i, resourceAttributes(controllerAccount('generic-garbage-collector'), 'create', { resource: 'secrets', namespace: 'x' })), 'NoOpinion'],
  ['the namespace controller finalizes namespaces', (i) => authorize(i, resourceAttributes(controllerAccount('namespace-controller'), 'update', { resource: 'namespaces', subresource: 'finalize', name: 'x' })), 'Allow'],
  ['the aggregation controller may escalate cluster roles', (i) => authorize(i, resourceAttributes(controllerAccount('clusterrole-aggregation-controller'), 'escalate', { group: 'rbac.authorization.plat.io', resource: 'clusterroles', name: 'admin' })), 'Allow'],
  ['the service-account controller creates service accounts', (i) => authorize(i, resourceAttributes(controllerAccount('service-account-controller'), 'create', { resource: 'serviceaccounts', namespace: 'x' })), 'Allow'],
  ['a controller account elsewhere is nobody', (i) => authorize(i, resourceAttributes(user('system:serviceaccount:other:namespace-controller', ['system:authenticated']), 'update', { resource: 'namespaces', subresource: 'finalize', name: 'x' })), 'NoOpinion'],
  ['a node agent posts its node status', (i) => authorize(i, resourceAttributes(nodeAgent, 'patch', { resource: 'nodes', subresource: 'status', name: 'worker-1' })), 'Allow',
    'RBAC: allowed by ClusterRoleBinding "system:node" of ClusterRole "system:node" to Group "system:nodes"'],
  ['a node agent renews its lease', (i) => authorize(i, resourceAttributes(nodeAgent, 'update', { group: 'coordination.plat.io', resource: 'leases', namespace: 'plat-node-lease', name: 'worker-1' })), 'Allow'],
  ['a node agent asks the API about its callers', (i) => authorize(i, resourceAttributes(nodeAgent, 'create', { group: 'authorization.plat.io', resource: 'subjectaccessreviews' })), 'Allow'],
  ['a node agent deletes no node', (i) => authorize(i, resourceAttributes(nodeAgent, 'delete', { resource: 'nodes', name: 'worker-2' })), 'NoOpinion'],
  ['the node controller marks nodes unreachable', (i) => authorize(i, resourceAttributes(controllerAccount('node-controller'), 'update', { resource: 'nodes', subresource: 'status', name: 'worker-1' })), 'Allow'],
  ['the node controller taints nodes', (i) => authorize(i, resourceAttributes(controllerAccount('node-controller'), 'patch', { resource: 'nodes', name: 'worker-1' })), 'Allow'],
  ['an authenticated user cannot reach a node agent', (i) => authorize(i, resourceAttributes(authenticated, 'get', { resource: 'nodes', subresource: 'proxy', name: 'worker-1' })), 'NoOpinion'],
  ['an authenticated user reads discovery', (i) => authorize(i, nonResourceAttributes(authenticated, 'get', '/apis/apps/v1')), 'Allow',
    'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"'],
  ['an authenticated user runs a SelfSubjectAccessReview', (i) => authorize(i, resourceAttributes(authenticated, 'create', { group: 'authorization.plat.io', resource: 'selfsubjectaccessreviews' })), 'Allow',
    'RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"'],
  ['an authenticated user runs a SelfSubjectReview', (i) => authorize(i, resourceAttributes(authenticated, 'create', { group: 'authentication.plat.io', resource: 'selfsubjectreviews' })), 'Allow'],
  ['an authenticated user cannot list pods', (i) => authorize(i, resourceAttributes(authenticated, 'list', { resource: 'pods', namespace: 'default' })), 'NoOpinion'],
  ['an anonymous user reads /healthz and /version', (i) => authorize(i, nonResourceAttributes(anonymous, 'get', '/version')), 'Allow',
    'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"'],
  ['an anonymous user cannot read discovery', (i) => authorize(i, nonResourceAttributes(anonymous, 'get', '/api')), 'NoOpinion'],
  ['system:masters may do anything through cluster-admin', (i) => authorize(i, resourceAttributes(root, 'delete', { resource: 'namespaces', name: 'kube-system' })), 'Allow',
    'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"'],
  ['system:masters may do anything through the privileged-group authorizer', (i) => privilegedGroupAuthorizer(resourceAttributes(root, 'escalate', { group: 'rbac.authorization.plat.io', resource: 'clusterroles', name: 'x' })), 'Allow', ''],
  ['view reads deployments in its namespace', (i) => (bindIn(i, 'view', 'dev'), authorize(i, resourceAttributes(authenticated, 'list', { group: 'apps', resource: 'deployments', namespace: 'dev' }))), 'Allow',
    'RBAC: allowed by RoleBinding "alice-view/dev" of ClusterRole "view" to User "alice"'],
  ['view cannot read secrets', (i) => (bindIn(i, 'view', 'dev'), authorize(i, resourceAttributes(authenticated, 'get', { resource: 'secrets', namespace: 'dev', name: 's' }))), 'NoOpinion'],
  ['edit creates deployments and reads secrets', (i) => (bindIn(i, 'edit', 'dev'), authorize(i, resourceAttributes(authenticated, 'get', { resource: 'secrets', namespace: 'dev', name: 's' }))), 'Allow'],
  ['edit inherits view (pods/log)', (i) => (bindIn(i, 'edit', 'dev'), authorize(i, resourceAttributes(authenticated, 'get', { resource: 'pods', subresource: 'log', namespace: 'dev', name: 'p' }))), 'Allow'],
  ['edit cannot create roles', (i) => (bindIn(i, 'edit', 'dev'), authorize(i, resourceAttributes(authenticated, 'create', { group: 'rbac.authorization.plat.io', resource: 'roles', namespace: 'dev' }))), 'NoOpinion'],
  ['admin creates rolebindings', (i) => (bindIn(i, 'admin', 'dev'), authorize(i, resourceAttributes(authenticated, 'create', { group: 'rbac.authorization.plat.io', resource: 'rolebindings', namespace: 'dev' }))), 'Allow'],
  ['admin creates service-account tokens (edit, aggregated twice)', (i) => (bindIn(i, 'admin', 'dev'), authorize(i, resourceAttributes(authenticated, 'create', { resource: 'serviceaccounts', subresource: 'token', namespace: 'dev', name: 'sa' }))), 'Allow'],
  ['admin in dev is nothing in prod', (i) => (bindIn(i, 'admin', 'dev'), authorize(i, resourceAttributes(authenticated, 'create', { group: 'rbac.authorization.plat.io', resource: 'rolebindings', namespace: 'prod' }))), 'NoOpinion'],
];

for (const [name, run, decision, reason] of endToEnd) {
  test(`bootstrap policy: ${name}`, () => {
    const result = run(bootstrapped());
    assert.equal(result.decision, decision);
    if (reason !== undefined) assert.equal(result.reason, reason);
  });
}

test('bootstrap policy: the rules review of an authenticated user lists the defaults', () => {
  const status = rulesReview(bootstrapped(), authenticated, 'default');
  assert.deepEqual(status.resourceRules, [
    { verbs: ['create'], apiGroups: ['authorization.plat.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    { verbs: ['create'], apiGroups: ['authentication.plat.io'], resources: ['selfsubjectreviews'] },
  ]);
  assert.deepEqual(status.nonResourceRules.map((r) => r.nonResourceURLs?.length), [11, 5]);
  assert.equal(status.incomplete, false);
});
