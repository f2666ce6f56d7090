import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forbiddenMessage } from './authorize.js';
import { nonResourceAttributes, resourceAttributes, user } from './testing.js';
import type { AccessAttributes } from '@plat/apimachinery';

const alice = user('alice');

const cases: [string, AccessAttributes, string, string][] = [
  [
    'a namespaced collection',
    resourceAttributes(alice, 'list', { resource: 'serviceaccounts', namespace: 'default' }),
    '',
    'serviceaccounts is forbidden: User "alice" cannot list resource "serviceaccounts" in API group "" in the namespace "default"',
  ],
  [
    'a named object of a group',
    resourceAttributes(alice, 'get', { group: 'apps', resource: 'deployments', name: 'web', namespace: 'prod' }),
    '',
    'deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments" in API group "apps" in the namespace "prod"',
  ],
  [
    'a cluster-scoped object',
    resourceAttributes(alice, 'delete', { resource: 'namespaces', name: 'kube-system' }),
    '',
    'namespaces "kube-system" is forbidden: User "alice" cannot delete resource "namespaces" in API group "" at the cluster scope',
  ],
  [
    'a list across all namespaces',
    resourceAttributes(alice, 'list', { group: 'rbac.authorization.plat.io', resource: 'rolebindings' }),
    '',
    'rolebindings.rbac.authorization.plat.io is forbidden: User "alice" cannot list resource "rolebindings" in API group "rbac.authorization.plat.io" at the cluster scope',
  ],
  [
    'a subresource: the message names it, the qualified resource does not',
    resourceAttributes(alice, 'create', { resource: 'pods', subresource: 'exec', name: 'p', namespace: 'ns' }),
    '',
    'pods "p" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "ns"',
  ],
  [
    'a subresource of a cluster-scoped object',
    resourceAttributes(alice, 'update', { resource: 'namespaces', subresource: 'finalize', name: 'x' }),
    '',
    'namespaces "x" is forbidden: User "alice" cannot update resource "namespaces/finalize" in API group "" at the cluster scope',
  ],
  [
    'a non-resource path',
    nonResourceAttributes(alice, 'get', '/metrics'),
    '',
    'forbidden: User "alice" cannot get path "/metrics"',
  ],
  [
    'a service account',
    resourceAttributes(user('system:serviceaccount:ci:builder'), 'watch', { resource: 'secrets', namespace: 'ci' }),
    '',
    'secrets is forbidden: User "system:serviceaccount:ci:builder" cannot watch resource "secrets" in API group "" in the namespace "ci"',
  ],
  [
    'the authorizer reason follows, unquoted',
    resourceAttributes(alice, 'get', { resource: 'pods', name: 'p', namespace: 'default' }),
    'RBAC: role.rbac.authorization.plat.io "gone" not found',
    'pods "p" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "default": RBAC: role.rbac.authorization.plat.io "gone" not found',
  ],
  [
    'HTML-like text is escaped, quotes are escaped as Go does',
    resourceAttributes(user('<b>"x"&'), 'get', { resource: 'pods', namespace: 'default' }),
    '',
    'pods is forbidden: User "&lt;b&gt;\\"x\\"&amp;" cannot get resource "pods" in API group "" in the namespace "default"',
  ],
];

for (const [name, attributes, reason, expected] of cases) {
  test(`forbiddenMessage: ${name}`, () => assert.equal(forbiddenMessage(attributes, reason), expected));
}
