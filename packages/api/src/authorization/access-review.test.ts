import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessAttributes } from '@plat/apimachinery';
import type { VirtualContext, VirtualServices } from '@plat/registry';
import { create, messages, plat } from '../testing/harness.js';
import { tokenRequestDefinition as tokenRequestKind, type TokenRequest } from '../authentication/token-request.js';
import { tokenReviewDefinition as tokenReviewKind } from '../authentication/token-review.js';
import { attributesFrom, statusFrom } from './access-review.js';
import { localSubjectAccessReviewDefinition } from './local-subject-access-review.js';
import { selfSubjectAccessReviewDefinition } from './self-subject-access-review.js';
import { subjectAccessReviewDefinition } from './subject-access-review.js';

const asked: AccessAttributes[] = [];
const services: VirtualServices = {
  authorize: async (attributes) => {
    asked.push(attributes);
    return { decision: 'NoOpinion', reason: 'nobody said yes', evaluationError: 'a roleRef is missing' };
  },
  rulesFor: async () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};
// The token kinds are given their services by their factories.
const tokenReviewDefinition = tokenReviewKind({
  review: async () => ({ authenticated: true, user: { name: 'bob', uid: '', groups: ['g'] }, audiences: ['api'] }),
});
const tokenRequestDefinition = tokenRequestKind({
  issue: async (request) => ({ token: 't', audiences: request.audiences.length ? request.audiences : ['api'], issuedAt: '2024-01-01T00:00:00Z', expirationTimestamp: '2024-01-01T01:00:00Z' }),
});
const context = (overrides: Partial<VirtualContext> = {}): VirtualContext => ({
  domain: 'plat.io',
  namespace: '',
  name: '',
  user: { name: 'alice', uid: 'a', groups: ['devs'] },
  dryRun: false,
  services,
  ...overrides,
});

const reviewCases: { name: string; definition: any; object: any; want: string[] }[] = [
  { name: 'SAR: resource attributes and a user', definition: subjectAccessReviewDefinition, object: { metadata: {}, spec: { user: 'u', resourceAttributes: { verb: 'get' } } }, want: [] },
  {
    name: 'SAR: both attribute sets',
    definition: subjectAccessReviewDefinition,
    object: { metadata: {}, spec: { groups: ['g'], resourceAttributes: {}, nonResourceAttributes: { path: '/' } } },
    want: ['spec.nonResourceAttributes: Invalid value: {"path":"/"}: cannot be specified in combination with resourceAttributes'],
  },
  {
    name: 'SAR: neither, and nobody',
    definition: subjectAccessReviewDefinition,
    object: { metadata: {}, spec: {} },
    want: ['spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified', 'spec.user: Invalid value: "": at least one of user or group must be specified'],
  },
  {
    name: 'SAR: metadata must be empty',
    definition: subjectAccessReviewDefinition,
    object: { metadata: { name: 'x' }, spec: { user: 'u', nonResourceAttributes: {} } },
    want: ['metadata: Invalid value: {"name":"x"}: must be empty'],
  },
  { name: 'SSAR: no user needed', definition: selfSubjectAccessReviewDefinition, object: { metadata: {}, spec: { nonResourceAttributes: { path: '/' } } }, want: [] },
  {
    name: 'LSAR: an empty namespace is defaulted from metadata',
    definition: localSubjectAccessReviewDefinition,
    object: { metadata: { namespace: 'ns' }, spec: { user: 'u', resourceAttributes: { verb: 'get' } } },
    want: [],
  },
  {
    name: 'LSAR: another namespace and non-resource attributes',
    definition: localSubjectAccessReviewDefinition,
    object: { metadata: { namespace: 'ns' }, spec: { user: 'u', resourceAttributes: { namespace: 'other' }, nonResourceAttributes: {} } },
    want: [
      'spec.nonResourceAttributes: Invalid value: {}: cannot be specified in combination with resourceAttributes',
      'spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace',
      'spec.nonResourceAttributes: Invalid value: {}: disallowed on this kind of request',
    ],
  },
];

for (const { name, definition, object, want } of reviewCases) {
  test(`access review validation: ${name}`, () => assert.deepEqual(messages(create(definition, object, plat).errors), want));
}

test('attributes: an empty version matches all; non-resource requests carry path and verb', () => {
  const user = { name: 'u', groups: [] };
  assert.deepEqual(attributesFrom(user, { resourceAttributes: { verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'ns', name: 'd' } }), {
    user,
    verb: 'get',
    namespace: 'ns',
    apiGroup: 'apps',
    apiVersion: '*',
    resource: 'deployments',
    subresource: 'scale',
    name: 'd',
    isResourceRequest: true,
    path: '',
  });
  assert.equal(attributesFrom(user, { nonResourceAttributes: { path: '/x', verb: 'post' } }).path, '/x');
  assert.deepEqual(statusFrom({ decision: 'Allow', reason: '' }), { allowed: true });
  assert.deepEqual(statusFrom({ decision: 'Deny', reason: 'no' }), { allowed: false, denied: true, reason: 'no' });
  // An authorizer that could not decide (a webhook down) is reported as the evaluation error, after RBAC's.
  assert.deepEqual(statusFrom({ decision: 'NoOpinion', reason: '', error: 'webhook down' }), { allowed: false, evaluationError: 'webhook down' });
  assert.deepEqual(statusFrom({ decision: 'NoOpinion', reason: 'RBAC: x', evaluationError: 'x', error: 'webhook down' }), {
    allowed: false,
    reason: 'RBAC: x',
    evaluationError: 'x\nwebhook down',
  });
});

test('SubjectAccessReview: asks about the spec\u2019s user, and reports the decision', async () => {
  asked.length = 0;
  const review = await subjectAccessReviewDefinition.virtual.create(
    { metadata: {}, spec: { user: 'u', groups: ['g'], extra: { k: ['v'] }, uid: '1', nonResourceAttributes: { path: '/p', verb: 'get' } } },
    context(),
  );
  assert.deepEqual(asked[0]!.user, { name: 'u', uid: '1', groups: ['g'], extra: { k: ['v'] } });
  assert.deepEqual(review.status, { allowed: false, reason: 'nobody said yes', evaluationError: 'a roleRef is missing' });
  await selfSubjectAccessReviewDefinition.virtual.create({ metadata: {}, spec: { resourceAttributes: { verb: 'get' } } }, context());
  assert.equal(asked[1]!.user.name, 'alice');
});

test('TokenReview: a token is required; the status as upstream shapes it', async () => {
  await assert.rejects(tokenReviewDefinition.virtual.create({ metadata: {}, spec: {} }, context()), /token is required for TokenReview in authentication\.plat\.io\/v1/);
  const review = await tokenReviewDefinition.virtual.create({ metadata: {}, spec: { token: 't' } }, context());
  assert.deepEqual(review.status, { authenticated: true, user: { username: 'bob', groups: ['g'] }, audiences: ['api'] });
});

test('TokenRequest: expirationSeconds defaults to an hour, within 10 minutes and 2^32 seconds', async () => {
  const defaulted = create<TokenRequest>(tokenRequestDefinition, { metadata: {}, spec: {} });
  assert.equal(defaulted.object.spec.expirationSeconds, 3600);
  assert.deepEqual(defaulted.errors, []);
  assert.deepEqual(messages(create<TokenRequest>(tokenRequestDefinition, { metadata: {}, spec: { expirationSeconds: 599 } }).errors), [
    'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
  ]);
  assert.deepEqual(messages(create<TokenRequest>(tokenRequestDefinition, { metadata: {}, spec: { expirationSeconds: 2 ** 32 + 1 } }).errors), [
    'spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
  ]);
  const answered = await tokenRequestDefinition.virtual.create(
    { apiVersion: 'authentication.plat.io/v1', kind: 'TokenRequest', metadata: { namespace: 'ns' }, spec: { expirationSeconds: 600 } },
    context({ namespace: 'ns', name: 'robot' }),
  );
  assert.deepEqual(answered.metadata, { name: 'robot', namespace: 'ns', creationTimestamp: '2024-01-01T00:00:00Z' });
  assert.deepEqual(answered.spec, { expirationSeconds: 600, audiences: ['api'] });
  assert.deepEqual(answered.status, { token: 't', expirationTimestamp: '2024-01-01T01:00:00Z' });
  await assert.rejects(
    tokenRequestDefinition.virtual.create({ metadata: { name: 'other' }, spec: {} }, context({ namespace: 'ns', name: 'robot' })),
    /metadata\.name: Invalid value: "other": must match the service account name if specified/,
  );
});
