import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forbiddenMessage, newAuthorizer, unionAuthorizer, type AuthorizationAttributes, type Authorizer } from './authorization.js';

const base: AuthorizationAttributes = {
  user: { name: 'bob', uid: '', groups: ['system:authenticated'] },
  verb: 'get',
  isResourceRequest: false,
  path: '/healthz',
  apiGroup: '',
  apiVersion: '',
  namespace: '',
  resource: '',
  subresource: '',
  name: '',
};

const messages: { name: string; attributes: Partial<AuthorizationAttributes>; want: string }[] = [
  { name: 'non-resource path', attributes: {}, want: 'User "bob" cannot get path "/healthz"' },
  {
    name: 'namespaced resource',
    attributes: { isResourceRequest: true, verb: 'list', resource: 'pods', namespace: 'default', apiVersion: 'v1' },
    want: 'User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
  },
  {
    name: 'cluster-scoped subresource',
    attributes: { isResourceRequest: true, verb: 'update', resource: 'namespaces', subresource: 'finalize', name: 'x' },
    want: 'User "bob" cannot update resource "namespaces/finalize" in API group "" at the cluster scope',
  },
  {
    name: 'named group',
    attributes: { isResourceRequest: true, verb: 'create', resource: 'roles', apiGroup: 'rbac.authorization.plat.io', namespace: 'ns' },
    want: 'User "bob" cannot create resource "roles" in API group "rbac.authorization.plat.io" in the namespace "ns"',
  },
];

for (const { name, attributes, want } of messages) {
  test(`forbidden message: ${name}`, () => assert.equal(forbiddenMessage({ ...base, ...attributes }), want));
}

const modes: { name: string; modes: Parameters<typeof newAuthorizer>[0]; groups?: string[]; want: string }[] = [
  { name: 'AlwaysAllow allows', modes: ['AlwaysAllow'], want: 'Allow' },
  { name: 'AlwaysDeny has no opinion, so the request is refused', modes: ['AlwaysDeny'], want: 'NoOpinion' },
  { name: 'the first mode that decides wins', modes: ['AlwaysDeny', 'AlwaysAllow'], want: 'Allow' },
  { name: 'system:masters is always allowed', modes: ['AlwaysDeny'], groups: ['system:masters'], want: 'Allow' },
];

for (const { name, modes: m, groups, want } of modes) {
  test(`authorizer: ${name}`, async () => {
    const result = await newAuthorizer(m).authorize({ ...base, user: { ...base.user, groups: groups ?? base.user.groups } });
    assert.equal(result.decision, want);
  });
}

test('authorizer: union joins the reasons when nobody decides', async () => {
  const a: Authorizer = { authorize: () => ({ decision: 'NoOpinion', reason: 'a says no' }) };
  const b: Authorizer = { authorize: async () => ({ decision: 'NoOpinion', reason: 'b says no' }) };
  const deny: Authorizer = { authorize: () => ({ decision: 'Deny', reason: 'denied' }) };
  assert.deepEqual(await unionAuthorizer([a, b]).authorize(base), { decision: 'NoOpinion', reason: 'a says no\nb says no' });
  assert.deepEqual(await unionAuthorizer([a, deny, b]).authorize(base), { decision: 'Deny', reason: 'denied' });
});
