import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forbiddenError, newAuthorizer, newSyncAuthorizer, unionAuthorizer, type Authorizer } from './authorization.js';
import type { AccessAttributes } from '@plat/apimachinery';

const base: AccessAttributes = {
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

const messages: { name: string; attributes: Partial<AccessAttributes>; reason?: string; want: string; details: object }[] = [
  { name: 'non-resource path', attributes: {}, want: 'forbidden: User "bob" cannot get path "/healthz"', details: {} },
  {
    name: 'namespaced resource',
    attributes: { isResourceRequest: true, verb: 'list', resource: 'pods', namespace: 'default', apiVersion: 'v1' },
    want: 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"',
    details: { kind: 'pods' },
  },
  {
    name: 'cluster-scoped subresource',
    attributes: { isResourceRequest: true, verb: 'update', resource: 'namespaces', subresource: 'finalize', name: 'x' },
    want: 'namespaces "x" is forbidden: User "bob" cannot update resource "namespaces/finalize" in API group "" at the cluster scope',
    details: { name: 'x', kind: 'namespaces' },
  },
  {
    name: 'named group, with a reason',
    attributes: { isResourceRequest: true, verb: 'create', resource: 'roles', apiGroup: 'rbac.authorization.plat.io', namespace: 'ns' },
    reason: 'RBAC: role.rbac.authorization.plat.io "x" not found',
    want: 'roles.rbac.authorization.plat.io is forbidden: User "bob" cannot create resource "roles" in API group "rbac.authorization.plat.io" in the namespace "ns": RBAC: role.rbac.authorization.plat.io "x" not found',
    details: { group: 'rbac.authorization.plat.io', kind: 'roles' },
  },
];

for (const { name, attributes, reason, want, details } of messages) {
  test(`forbidden error: ${name}`, () => {
    const error = forbiddenError({ ...base, ...attributes }, reason ?? '');
    assert.equal(error.code, 403);
    assert.equal(error.status.reason, 'Forbidden');
    assert.equal(error.message, want);
    assert.deepEqual(error.status.details, details);
  });
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

test('authorizer: RBAC needs the RBAC authorizer', () => {
  assert.throws(() => newAuthorizer(['RBAC']), /needs the resource API/);
});

test('authorizer: union joins the reasons and evaluation errors when nobody decides', async () => {
  const a: Authorizer = { authorize: () => ({ decision: 'NoOpinion', reason: 'a says no', evaluationError: 'broken' }) };
  const b: Authorizer = { authorize: async () => ({ decision: 'NoOpinion', reason: 'b says no' }) };
  const deny: Authorizer = { authorize: () => ({ decision: 'Deny', reason: 'denied' }) };
  assert.deepEqual(await unionAuthorizer([a, b]).authorize(base), { decision: 'NoOpinion', reason: 'a says no\nb says no', evaluationError: 'broken' });
  assert.deepEqual(await unionAuthorizer([a, deny, b]).authorize(base), { decision: 'Deny', reason: 'denied' });
});

test('authorizer: Webhook needs the webhook\'s authorizer, and sits where --authorization-mode puts it', async () => {
  assert.throws(() => newAuthorizer(['Webhook']), /needs --authorization-webhook-config-file/);
  const webhook: Authorizer = { authorize: () => ({ decision: 'Deny', reason: 'webhook denies' }) };
  assert.equal((await newAuthorizer(['AlwaysAllow', 'Webhook'], { webhook }).authorize(base)).decision, 'Allow');
  assert.deepEqual(await newAuthorizer(['Webhook', 'AlwaysAllow'], { webhook }).authorize(base), { decision: 'Deny', reason: 'webhook denies' });
});

test('sync authorizer: the Webhook mode too, in order, its errors aggregated as the union\'s', () => {
  assert.throws(() => newSyncAuthorizer(['Webhook']), /needs --authorization-webhook-config-file/);
  const unanswered = { authorize: () => ({ decision: 'NoOpinion' as const, reason: '', error: 'not cached' }) };
  assert.deepEqual(newSyncAuthorizer(['Webhook', 'AlwaysDeny'], { webhook: unanswered }).authorize(base), { decision: 'NoOpinion', reason: 'Everything is forbidden.', error: 'not cached' });
  assert.equal(newSyncAuthorizer(['Webhook', 'AlwaysAllow'], { webhook: unanswered }).authorize(base).decision, 'Allow');
});

test('authorizer: union aggregates the errors of authorizers that could not decide, as upstream', async () => {
  const down = (name: string): Authorizer => ({ authorize: () => ({ decision: 'NoOpinion', reason: '', error: `${name} down` }) });
  const none: Authorizer = { authorize: () => ({ decision: 'NoOpinion', reason: 'no rule' }) };
  const allow: Authorizer = { authorize: () => ({ decision: 'Allow', reason: 'ok' }) };
  assert.deepEqual(await unionAuthorizer([down('a'), none]).authorize(base), { decision: 'NoOpinion', reason: 'no rule', error: 'a down' });
  assert.deepEqual(await unionAuthorizer([down('a'), down('b')]).authorize(base), { decision: 'NoOpinion', reason: '', error: '[a down, b down]' });
  // An authorizer after a failed one may still decide; the earlier error goes with the failure only.
  assert.deepEqual(await unionAuthorizer([down('a'), allow]).authorize(base), { decision: 'Allow', reason: 'ok' });
});

test('authorizer: rules are the union of the modes that list them', async () => {
  const rules = await newAuthorizer(['AlwaysDeny', 'AlwaysAllow']).rulesFor!(base.user, 'ns');
  assert.deepEqual(rules, {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  });
});
