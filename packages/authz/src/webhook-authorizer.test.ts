import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessAttributes } from '@plat/apimachinery';
import { startTestWebhook, type TestWebhook } from '@plat/apiserver/testing';
import { WebhookAuthorizer } from './webhook-authorizer.js';
import { WebhookClient } from '@plat/webhook';
import type { WebhookVersion } from '@plat/authn';

let webhook: TestWebhook;
before(async () => {
  webhook = await startTestWebhook(() => ({ body: {} }));
});
after(() => webhook.close());

const listPods: AccessAttributes = {
  user: { name: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } },
  verb: 'list',
  isResourceRequest: true,
  path: '/api/v1/namespaces/team/pods',
  apiGroup: '',
  apiVersion: 'v1',
  namespace: 'team',
  resource: 'pods',
  subresource: '',
  name: '',
};

function setup(options: { version?: WebhookVersion; url?: string } = {}) {
  let now = 5_000_000;
  const client = new WebhookClient({ url: options.url ?? webhook.url, ca: webhook.ca, verifyServer: true }, { backoff: { initialMs: 1, factor: 1, jitter: 0, steps: 2 } });
  const authorizer = new WebhookAuthorizer({ client, domain: 'plat.io', version: options.version ?? 'v1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000, now: () => now });
  webhook.received = [];
  return { authorizer, advance: (ms: number) => (now += ms) };
}

const answering = (status: Record<string, unknown>): void => {
  webhook.answer = () => ({ body: { apiVersion: 'authorization.plat.io/v1', kind: 'SubjectAccessReview', status } });
};

test('authorization webhook: a SubjectAccessReview of the request, v1 and v1beta1 (whose groups are `group`)', async () => {
  answering({ allowed: true });
  await setup().authorizer.authorize(listPods);
  assert.deepEqual(webhook.received[0]!.body, {
    apiVersion: 'authorization.plat.io/v1',
    kind: 'SubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: {
      resourceAttributes: { namespace: 'team', verb: 'list', version: 'v1', resource: 'pods' },
      user: 'jane',
      groups: ['dev', 'system:authenticated'],
      extra: { scopes: ['a'] },
      uid: 'u-1',
    },
    status: { allowed: false },
  });
  const healthz: AccessAttributes = { ...listPods, isResourceRequest: false, verb: 'get', path: '/healthz', user: { name: 'anon', groups: ['system:unauthenticated'] } };
  await setup({ version: 'v1beta1' }).authorizer.authorize(healthz);
  assert.deepEqual(webhook.received[0]!.body.apiVersion, 'authorization.plat.io/v1beta1');
  assert.deepEqual(webhook.received[0]!.body.spec, { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'anon', group: ['system:unauthenticated'] });
});

const decisions: { name: string; status: Record<string, unknown>; want: object }[] = [
  { name: 'allowed', status: { allowed: true, reason: 'team lead' }, want: { decision: 'Allow', reason: 'team lead' } },
  { name: 'denied', status: { allowed: false, denied: true, reason: 'frozen' }, want: { decision: 'Deny', reason: 'frozen' } },
  { name: 'neither: no opinion', status: { allowed: false, reason: 'not mine' }, want: { decision: 'NoOpinion', reason: 'not mine' } },
  // The webhook's own evaluationError is not ours to report, as upstream.
  { name: 'an evaluation error of the webhook', status: { allowed: false, evaluationError: 'x' }, want: { decision: 'NoOpinion', reason: '' } },
  {
    name: 'both allowed and denied: denied, with an error',
    status: { allowed: true, denied: true },
    want: { decision: 'Deny', reason: '', error: 'webhook subject access review returned both allow and deny response' },
  },
];

for (const { name, status, want } of decisions) {
  test(`authorization webhook decision: ${name}`, async () => {
    answering(status);
    assert.deepEqual(await setup().authorizer.authorize(listPods), want);
  });
}

test('authorization webhook: allowed answers kept for the authorized TTL, others for the unauthorized TTL', async () => {
  const { authorizer, advance } = setup();
  answering({ allowed: true });
  const asked = () => webhook.received.length;
  await authorizer.authorize(listPods);
  await authorizer.authorize(listPods);
  assert.equal(asked(), 1, 'the second is a hit');
  const other = { ...listPods, verb: 'delete' };
  answering({ allowed: false });
  await authorizer.authorize(other);
  await authorizer.authorize(other);
  assert.equal(asked(), 2);
  advance(30_000);
  assert.equal((await authorizer.authorize(other)).decision, 'NoOpinion');
  assert.equal(asked(), 3, 'the refusal expired after 30 s');
  assert.equal((await authorizer.authorize(listPods)).decision, 'Allow', 'the allowance is still kept');
  assert.equal(asked(), 3);
  advance(270_000);
  assert.equal((await authorizer.authorize(listPods)).decision, 'NoOpinion', 'asked again after 5 minutes');
  assert.equal(asked(), 4);
  // Another user is another question.
  await authorizer.authorize({ ...listPods, user: { name: 'bob', groups: [] } });
  assert.equal(asked(), 5);
});

test('authorization webhook: requests with very long attributes are not kept', async () => {
  const { authorizer } = setup();
  answering({ allowed: true });
  const long = { ...listPods, name: 'x'.repeat(10_000) };
  await authorizer.authorize(long);
  await authorizer.authorize(long);
  assert.equal(webhook.received.length, 2);
});

test('authorization webhook: a failure is no opinion with an error, and is not kept', async () => {
  const { authorizer } = setup();
  webhook.answer = () => ({ status: 500, body: 'down' });
  const failed = await authorizer.authorize(listPods);
  assert.deepEqual(failed, { decision: 'NoOpinion', reason: '', error: 'an error on the server ("down") has prevented the request from succeeding' });
  answering({ allowed: true });
  assert.equal((await authorizer.authorize(listPods)).decision, 'Allow');
  const unreachable = await setup({ url: 'https://127.0.0.1:1/authorize' }).authorizer.authorize(listPods);
  assert.match(unreachable.error ?? '', /^Post "https:\/\/127\.0\.0\.1:1\/authorize": connect ECONNREFUSED/);
});

test('authorization webhook: it lists no rules, and says so', () => {
  assert.deepEqual(setup().authorizer.rulesFor(), {
    resourceRules: [],
    nonResourceRules: [],
    incomplete: true,
    evaluationError: 'webhook authorizer does not support user rule resolution',
  });
});

test('authorization webhook, answering at once (admission policies\' expressions): the cached answer, else an error while it is asked', async () => {
  const { authorizer } = setup();
  answering({ allowed: true, reason: 'ok' });
  const first = authorizer.cachedOnly.authorize(listPods);
  assert.equal(first.decision, 'NoOpinion');
  assert.match(first.error ?? '', /has not answered this question yet/);
  // Asked in the background: once answered, the answer is there at once.
  for (let i = 0; i < 100 && webhook.received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(authorizer.cachedOnly.authorize(listPods), { decision: 'Allow', reason: 'ok' });
  assert.equal(webhook.received.length, 1);
});
