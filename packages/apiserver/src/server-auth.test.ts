import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startTestWebhook } from './testing/index.js';
import type { UserInfo } from '@plat/authn';

const tokens = new Map<string, UserInfo>([
  ['alice-token', { name: 'alice', uid: 'u-1', groups: ['devs'] }],
  ['admin-token', { name: 'admin', uid: 'u-0', groups: ['system:masters'] }],
]);

const unauthorizedBody = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}';

async function serverWithWhoami(options: Parameters<typeof startServer>[0]) {
  const started = await startServer(options);
  started.server.handle('/whoami', (ctx) => {
    ctx.body = ctx.state.user;
  });
  return started;
}

test('token auth: a known token authenticates; the user is recorded', async (t) => {
  const { server, get, lines } = await serverWithWhoami({ authentication: { tokens } });
  t.after(() => server.shutdown());
  const res = await get('/whoami', { headers: { Authorization: 'Bearer alice-token' } });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.body), { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'] });
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(lines.some((l) => l.msg === 'HTTP' && l.user === 'alice'));
});

test('token auth: an unknown token is a 401 Status, even with anonymous auth on, health checks included', async (t) => {
  const { server, get } = await serverWithWhoami({ authentication: { tokens, anonymous: true } });
  t.after(() => server.shutdown());
  for (const path of ['/whoami', '/healthz', '/nope']) {
    const res = await get(path, { headers: { Authorization: 'Bearer wrong' } });
    assert.equal(res.status, 401, path);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.body, unauthorizedBody);
  }
});

test('anonymous auth: on by default, system:anonymous in system:unauthenticated', async (t) => {
  const { server, get } = await serverWithWhoami({});
  t.after(() => server.shutdown());
  const res = await get('/whoami');
  assert.deepEqual(JSON.parse(res.body), { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] });
});

test('anonymous auth off: no credentials is a 401; a token still works', async (t) => {
  const { server, get } = await serverWithWhoami({ authentication: { tokens, anonymous: false } });
  t.after(() => server.shutdown());
  const res = await get('/healthz');
  assert.equal(res.status, 401);
  assert.equal(res.body, unauthorizedBody);
  assert.equal((await get('/healthz', { headers: { Authorization: 'Bearer alice-token' } })).status, 200);
});

test('AlwaysDeny: a 403 Status in upstream\'s words; system:masters is still allowed', async (t) => {
  const { server, get } = await serverWithWhoami({ authentication: { tokens }, authorizationModes: ['AlwaysDeny'] });
  t.after(() => server.shutdown());
  const res = await get('/healthz');
  assert.equal(res.status, 403);
  assert.deepEqual(JSON.parse(res.body), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'forbidden: User "system:anonymous" cannot get path "/healthz": Everything is forbidden.',
    reason: 'Forbidden',
    details: {},
    code: 403,
  });
  const resource = await get('/api/v1/namespaces/default/pods', { headers: { Authorization: 'Bearer alice-token' } });
  assert.equal(resource.status, 403);
  assert.equal(
    JSON.parse(resource.body).message,
    'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default": Everything is forbidden.',
  );
  assert.equal((await get('/healthz', { headers: { Authorization: 'Bearer admin-token' } })).status, 200);
});

const fastRetries = { initialMs: 1, factor: 1, jitter: 0, steps: 2 };

test('token webhook: tokens the token file does not know are reviewed by the webhook, the answers cached', async (t) => {
  const webhook = await startTestWebhook((review) => {
    const token = (review.spec as { token: string }).token;
    return { body: { status: token === 'webhook-token' ? { authenticated: true, user: { username: 'wendy', groups: ['ops'] } } : { authenticated: false } } };
  });
  const { server, get } = await serverWithWhoami({
    authentication: { tokens },
    tokenWebhook: { connection: { url: webhook.url, ca: webhook.ca, verifyServer: true }, version: 'v1', cacheTtlMs: 60_000, backoff: fastRetries },
  });
  t.after(async () => {
    await server.shutdown();
    await webhook.close();
  });
  const bearer = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
  assert.deepEqual(JSON.parse((await get('/whoami', bearer('alice-token'))).body).name, 'alice');
  assert.equal(webhook.received.length, 0, 'the token file answers first');
  for (let i = 0; i < 3; i++) {
    const res = await get('/whoami', bearer('webhook-token'));
    assert.deepEqual(JSON.parse(res.body), { name: 'wendy', uid: '', groups: ['ops', 'system:authenticated'] });
  }
  for (let i = 0; i < 2; i++) assert.equal((await get('/whoami', bearer('nobody'))).status, 401);
  assert.equal(webhook.received.length, 2, 'one review per token: the rest were cached');
  const metrics = (await get('/metrics', bearer('alice-token'))).body;
  assert.match(metrics, /^authentication_token_cache_request_total\{status="hit"\} 3$/m);
  assert.match(metrics, /^authentication_token_cache_request_total\{status="miss"\} 2$/m);
  assert.match(metrics, /^# HELP authentication_token_cache_request_total \[ALPHA\] /m);
});

test('authorization webhook: decides in --authorization-mode order; a webhook down is a 500 unless a later mode allows', async (t) => {
  let status: Record<string, unknown> | undefined = { allowed: false, denied: true, reason: 'change freeze' };
  const webhook = await startTestWebhook(() => (status ? { body: { status } } : { status: 500, body: 'down' }));
  const connection = { url: webhook.url, ca: webhook.ca, verifyServer: true };
  const ttls = { authorizedTtlMs: 60_000, unauthorizedTtlMs: 0, backoff: fastRetries };
  const first = await serverWithWhoami({ authentication: { tokens }, authorizationModes: ['Webhook', 'AlwaysAllow'], authorizationWebhook: { connection, version: 'v1', ...ttls } });
  const last = await serverWithWhoami({ authentication: { tokens }, authorizationModes: ['AlwaysDeny', 'Webhook'], authorizationWebhook: { connection, version: 'v1', ...ttls } });
  t.after(async () => {
    await first.server.shutdown();
    await last.server.shutdown();
    await webhook.close();
  });
  const alice = { headers: { Authorization: 'Bearer alice-token' } };
  const denied = await first.get('/whoami', alice);
  assert.equal(denied.status, 403);
  assert.equal(JSON.parse(denied.body).message, 'forbidden: User "alice" cannot get path "/whoami": change freeze');
  assert.equal((await last.get('/whoami', alice)).status, 403, 'AlwaysDeny has no opinion; the webhook denies');
  status = { allowed: true };
  assert.equal((await last.get('/whoami', alice)).status, 200);
  status = undefined;
  const down = await first.get('/healthz', alice);
  assert.equal(down.status, 200, 'the webhook failed; AlwaysAllow after it decided');
  const failed = await last.get('/healthz', alice);
  assert.equal(failed.status, 500);
  assert.deepEqual(JSON.parse(failed.body).reason, 'InternalError');
  assert.match(JSON.parse(failed.body).message, /^Internal error occurred: an error on the server \("down"\)/);
  assert.equal((await last.get('/whoami', { headers: { Authorization: 'Bearer admin-token' } })).status, 200, 'system:masters is not asked about');
});
