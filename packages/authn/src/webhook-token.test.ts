import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWebhook, type TestWebhook } from '@plat/apiserver/testing';
import { WebhookClient } from '@plat/webhook';
import { WebhookTokenAuthenticator, type WebhookVersion } from './webhook-token.js';

let webhook: TestWebhook;
before(async () => {
  webhook = await startTestWebhook(() => ({ body: {} }));
});
after(() => webhook.close());

const fastRetries = { initialMs: 1, factor: 1.5, jitter: 0.2, steps: 5 };

function authenticator(options: { version?: WebhookVersion; implicitAudiences?: string[]; url?: string } = {}): WebhookTokenAuthenticator {
  const client = new WebhookClient({ url: options.url ?? webhook.url, ca: webhook.ca, verifyServer: true, authorization: 'Bearer apiserver-secret' }, { backoff: fastRetries });
  return new WebhookTokenAuthenticator({ client, domain: 'plat.io', version: options.version ?? 'v1', implicitAudiences: options.implicitAudiences ?? [] });
}

/** The webhook answers every review with this status. */
const answering = (status: Record<string, unknown>, envelope: Record<string, unknown> = { apiVersion: 'authentication.plat.io/v1', kind: 'TokenReview' }): void => {
  webhook.received = [];
  webhook.answer = () => ({ body: { ...envelope, status } });
};

test('token webhook: posts a TokenReview of the domain\'s group with the token and audiences, as the kubeconfig\'s user', async () => {
  answering({ authenticated: true, user: { username: 'jane', uid: 'u-1', groups: ['dev'], extra: { scopes: ['read'] } } });
  const result = await authenticator().authenticateToken('the-token', []);
  assert.deepEqual(result, { user: { name: 'jane', uid: 'u-1', groups: ['dev'], extra: { scopes: ['read'] } }, audiences: [] });
  const [sent] = webhook.received;
  assert.deepEqual(sent!.body, { apiVersion: 'authentication.plat.io/v1', kind: 'TokenReview', metadata: { creationTimestamp: null }, spec: { token: 'the-token' }, status: { user: {} } });
  assert.equal(sent!.headers.authorization, 'Bearer apiserver-secret');
  assert.equal(sent!.headers['content-type'], 'application/json');

  await authenticator({ version: 'v1beta1' }).authenticateToken('t', ['api']);
  assert.deepEqual(webhook.received[1]!.body.apiVersion, 'authentication.plat.io/v1beta1');
  assert.deepEqual(webhook.received[1]!.body.spec, { token: 't', audiences: ['api'] });
});

const outcomes: { name: string; status: Record<string, unknown>; asked?: string[]; implicit?: string[]; want: 'user' | 'none' | RegExp; audiences?: string[] }[] = [
  { name: 'not authenticated', status: { authenticated: false }, want: 'none' },
  { name: 'not authenticated, with the webhook\'s error', status: { authenticated: false, error: 'token revoked' }, want: /^Error: token revoked$/ },
  { name: 'no audiences asked: none checked', status: { authenticated: true, user: { username: 'u' }, audiences: ['elsewhere'] }, want: 'user', audiences: [] },
  { name: 'the asked audience among the status\'', status: { authenticated: true, user: { username: 'u' }, audiences: ['api', 'other'] }, asked: ['api'], want: 'user', audiences: ['api'] },
  { name: 'none of the asked audiences in the status\'', status: { authenticated: true, user: { username: 'u' }, audiences: ['other'] }, asked: ['api'], want: 'none' },
  { name: 'no audiences in the status: the server\'s own', status: { authenticated: true, user: { username: 'u' } }, asked: ['api', 'x'], implicit: ['api'], want: 'user', audiences: ['api'] },
  { name: 'no audiences in the status and not the server\'s', status: { authenticated: true, user: { username: 'u' } }, asked: ['x'], implicit: ['api'], want: 'none' },
  // Upstream checks the audiences before authenticated: a wrong audience is no error.
  { name: 'an error for another audience is no error', status: { authenticated: false, error: 'bad', audiences: ['other'] }, asked: ['api'], want: 'none' },
];

for (const { name, status, asked, implicit, want, audiences } of outcomes) {
  test(`token webhook: ${name}`, async () => {
    answering(status);
    const review = authenticator({ implicitAudiences: implicit ?? [] }).authenticateToken('t', asked ?? []);
    if (want instanceof RegExp) return void (await assert.rejects(review, want));
    const result = await review;
    if (want === 'none') return void assert.equal(result, undefined);
    assert.equal(result?.user.name, 'u');
    assert.deepEqual(result?.audiences, audiences);
  });
}

const answers: { name: string; body: unknown; want: 'ok' | RegExp }[] = [
  { name: 'no kind or apiVersion: taken as sent', body: { status: { authenticated: true, user: { username: 'u' } } }, want: 'ok' },
  { name: 'the other version', body: { apiVersion: 'authentication.plat.io/v1beta1', kind: 'TokenReview', status: { authenticated: true } }, want: 'ok' },
  { name: 'another kind', body: { apiVersion: 'v1', kind: 'Status', status: 'Failure' }, want: /answered a Status, not a TokenReview/ },
  { name: 'another domain\'s group', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', status: {} }, want: /apiVersion "authentication.k8s.io\/v1", not authentication.plat.io\/v1 or authentication.plat.io\/v1beta1/ },
  { name: 'not JSON', body: 'no', want: /answer is not JSON/ },
  { name: 'a JSON list', body: [], want: /not a JSON object/ },
];

for (const { name, body, want } of answers) {
  test(`token webhook answer: ${name}`, async () => {
    webhook.answer = () => ({ body });
    const review = authenticator().authenticateToken('t', []);
    if (want === 'ok') assert.ok(await review);
    else await assert.rejects(review, want);
  });
}

test('token webhook: 500, 504, 429 and Retry-After are retried (5 attempts in all); other failures are not', async () => {
  const cases: { status: number; headers?: Record<string, string>; attempts: number; want: RegExp }[] = [
    { status: 500, attempts: 5, want: /an error on the server \("\{\\"oops\\":true\}"\) has prevented the request from succeeding/ },
    { status: 504, attempts: 5, want: /status code 504/ },
    { status: 429, attempts: 5, want: /status code 429/ },
    { status: 503, headers: { 'Retry-After': '1' }, attempts: 5, want: /status code 503/ },
    { status: 503, attempts: 1, want: /status code 503/ },
    { status: 401, attempts: 1, want: /status code 401/ },
  ];
  for (const { status, headers, attempts, want } of cases) {
    webhook.received = [];
    webhook.answer = () => ({ status, body: { oops: true }, ...(headers && { headers }) });
    await assert.rejects(authenticator().authenticateToken('t', []), want, String(status));
    assert.equal(webhook.received.length, attempts, `${status} ${JSON.stringify(headers ?? {})}`);
  }
  // A Status body's message is the error, as client-go reports it.
  webhook.answer = () => ({ status: 403, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'webhook says no', code: 403 } });
  await assert.rejects(authenticator().authenticateToken('t', []), /^Error: webhook says no$/);
  // A failure then a success: the retry's answer counts.
  let calls = 0;
  webhook.answer = () => (++calls === 1 ? { status: 500, body: {} } : { body: { status: { authenticated: true, user: { username: 'after-retry' } } } });
  assert.equal((await authenticator().authenticateToken('t', []))?.user.name, 'after-retry');
});

test('token webhook: an unreachable webhook is an error in Go\'s words, naming the URL', async () => {
  const url = 'https://127.0.0.1:1/review';
  await assert.rejects(authenticator({ url }).authenticateToken('t', []), /^Error: Post "https:\/\/127\.0\.0\.1:1\/review": connect ECONNREFUSED/);
});

test('token webhook: a certificate the CA does not sign is refused', async () => {
  const client = new WebhookClient({ url: webhook.url, verifyServer: true }, { backoff: fastRetries });
  const untrusting = new WebhookTokenAuthenticator({ client, domain: 'plat.io', version: 'v1', implicitAudiences: [] });
  await assert.rejects(untrusting.authenticateToken('t', []), /self-signed certificate|unable to verify/);
});
