import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './test-support.js';
import type { UserInfo } from './user.js';

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
