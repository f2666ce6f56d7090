import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from './audit.js';
import { startApiServer } from './api-test-support.js';

const admin = { Authorization: 'Bearer t-admin', 'User-Agent': 'audit-test/1.0' };

test('audit: one ResponseComplete line per request, in the audit.k8s.io/v1 Event shape, flushed by shutdown', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-audit-'));
  const path = join(dir, 'audit.log');
  const { server, send } = await startApiServer({
    auditLogPath: path,
    authentication: { tokens: new Map([['t-admin', { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] }]]) },
  });
  try {
    const created = await send('POST', '/api/v1/namespaces', { metadata: { name: 'audited' } }, admin);
    assert.equal(created.status, 201);
    const auditID = created.headers['audit-id'];
    assert.ok(typeof auditID === 'string' && auditID.length > 0, 'the response names its audit ID');
    assert.equal((await send('GET', '/api/v1/namespaces/audited/serviceaccounts/missing', undefined, admin)).status, 404);
    const impersonated = await send('GET', '/api/v1/namespaces/audited', undefined, { ...admin, 'Impersonate-User': 'jane', 'X-Forwarded-For': '10.0.0.7' });
    assert.equal(impersonated.status, 200, impersonated.body);
    assert.equal((await send('GET', '/api/v1/namespaces?watch=1&timeoutSeconds=1', undefined, admin)).status, 200);
    // Many requests at once, then shutdown at once: none of their lines may be lost.
    await Promise.all(Array.from({ length: 50 }, () => send('GET', '/api/v1/namespaces/audited', undefined, admin)));
  } finally {
    await server.shutdown();
  }
  const events = (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as AuditEvent);
  await rm(dir, { recursive: true, force: true });
  assert.equal(events.length, 54);
  assert.ok(events.every((event) => event.stage === 'ResponseComplete' && event.level === 'Metadata' && event.kind === 'Event' && event.apiVersion === 'audit.plat.io/v1'));

  const [create, missing, impersonation, watch] = events as [AuditEvent, AuditEvent, AuditEvent, AuditEvent];
  assert.equal(create.verb, 'create');
  assert.equal(create.requestURI, '/api/v1/namespaces');
  assert.deepEqual(create.user, { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] });
  assert.deepEqual(create.objectRef, { resource: 'namespaces', apiGroup: '', apiVersion: 'v1' });
  assert.deepEqual(create.responseStatus, { metadata: {}, code: 201 });
  assert.equal(create.userAgent, 'audit-test/1.0');
  assert.deepEqual(create.sourceIPs, ['127.0.0.1']);
  assert.equal(create.annotations?.['authorization.plat.io/decision'], 'allow');
  assert.match(create.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.ok(create.stageTimestamp >= create.requestReceivedTimestamp);

  assert.deepEqual(missing.objectRef, { resource: 'serviceaccounts', namespace: 'audited', name: 'missing', apiGroup: '', apiVersion: 'v1' });
  assert.equal(missing.responseStatus.code, 404);
  assert.equal(missing.responseStatus.status, 'Failure');
  assert.equal(missing.responseStatus.reason, 'NotFound');

  assert.equal(impersonation.user.username, 'admin');
  assert.equal(impersonation.impersonatedUser?.username, 'jane');
  assert.deepEqual(impersonation.sourceIPs, ['10.0.0.7', '127.0.0.1']);

  assert.equal(watch.verb, 'watch');
  assert.equal(watch.responseStatus.code, 200);
  assert.ok(Date.parse(watch.stageTimestamp) - Date.parse(watch.requestReceivedTimestamp) >= 900, 'logged when the watch ended');
});
