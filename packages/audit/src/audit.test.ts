import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditFileLog, legacyAuditLine, type AuditEvent } from './audit.js';
import { parseAuditPolicy } from './audit-policy.js';
import { captureLogger } from '@plat/apiserver/testing';
import { startApiServer } from '@plat/apiserver/testing';

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
  assert.equal(missing.responseStatus!.code, 404);
  assert.equal(missing.responseStatus!.status, 'Failure');
  assert.equal(missing.responseStatus!.reason, 'NotFound');

  assert.equal(impersonation.user.username, 'admin');
  assert.equal(impersonation.impersonatedUser?.username, 'jane');
  assert.deepEqual(impersonation.sourceIPs, ['10.0.0.7', '127.0.0.1']);

  assert.equal(watch.verb, 'watch');
  assert.equal(watch.responseStatus!.code, 200);
  assert.ok(Date.parse(watch.stageTimestamp) - Date.parse(watch.requestReceivedTimestamp) >= 900, 'logged when the watch ended');
});

/** A sink that keeps the events, for in-process tests. */
class MemorySink {
  readonly events: AuditEvent[] = [];
  write(event: AuditEvent): void {
    this.events.push(event);
  }
  async close(): Promise<void> {}
}

test('audit policy: levels, stages, bodies and omitManagedFields as the policy says; a failed handler is a Panic', async () => {
  const sink = new MemorySink();
  const auditPolicy = parseAuditPolicy(
    `apiVersion: audit.plat.io/v1
kind: Policy
omitStages: [ResponseStarted]
rules:
- level: None
  nonResourceURLs: [/healthz*]
- level: Metadata
  verbs: [watch]
- level: RequestResponse
  resources: [{group: "", resources: [namespaces]}]
  verbs: [create]
  omitStages: [RequestReceived]
  omitManagedFields: true
- level: Request
  resources: [{group: "", resources: [serviceaccounts]}]
  omitStages: [RequestReceived]
- level: Metadata
  omitStages: [RequestReceived]
`,
    'plat.io',
  );
  const { server, send, get } = await startApiServer({
    auditSink: sink,
    auditPolicy,
    authentication: { tokens: new Map([['t-admin', { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] }]]) },
  });
  server.handle('/boom', () => {
    throw new Error('the handler broke');
  });
  try {
    assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'bodies' } }, admin)).status, 201);
    assert.equal((await send('POST', '/api/v1/namespaces/bodies/serviceaccounts', { metadata: { name: 'sa' } }, admin)).status, 201);
    assert.equal((await get('/healthz')).status, 200);
    assert.equal((await send('GET', '/api/v1/namespaces?watch=1&timeoutSeconds=1', undefined, admin)).status, 200);
    assert.equal((await send('GET', '/boom', undefined, admin)).status, 500);
  } finally {
    await server.shutdown();
  }
  const byURI = (uri: string) => sink.events.filter((event) => event.requestURI === uri);
  assert.deepEqual(byURI('/healthz'), [], 'level None records nothing');

  const [create, ...more] = byURI('/api/v1/namespaces');
  assert.equal(more.length, 0, 'RequestReceived omitted by the rule');
  assert.deepEqual([create?.level, create?.stage], ['RequestResponse', 'ResponseComplete']);
  assert.deepEqual(create?.requestObject, { metadata: { name: 'bodies' } });
  const response = create?.responseObject as { kind: string; metadata: { name: string; managedFields?: unknown } };
  assert.equal(response.kind, 'Namespace');
  assert.equal(response.metadata.name, 'bodies');
  assert.equal(response.metadata.managedFields, undefined, 'omitManagedFields');

  const [account] = byURI('/api/v1/namespaces/bodies/serviceaccounts');
  assert.equal(account?.level, 'Request');
  assert.deepEqual(account?.requestObject, { metadata: { name: 'sa' } });
  assert.equal(account?.responseObject, undefined, 'Request level: no response body');

  // ResponseStarted is omitted by the policy for every rule; RequestReceived is recorded for the watch.
  const watch = byURI('/api/v1/namespaces?watch=1&timeoutSeconds=1');
  assert.deepEqual(
    watch.map((event) => [event.stage, event.level, event.responseStatus?.code, event.user.username]),
    [
      ['RequestReceived', 'Metadata', undefined, 'admin'],
      ['ResponseComplete', 'Metadata', 200, 'admin'],
    ],
  );
  assert.equal(watch[0]!.auditID, watch[1]!.auditID, 'the stages of one request share its audit ID');

  const [boom, ...after] = byURI('/boom');
  assert.equal(after.length, 0, 'Panic replaces ResponseComplete');
  assert.deepEqual([boom?.stage, boom?.responseStatus], ['Panic', { metadata: {}, code: 500, status: 'Failure', message: "APIServer panic'd: the handler broke" }]);
});

test('audit policy: a watch\'s ResponseStarted when its headers go out', async () => {
  const sink = new MemorySink();
  const { server, send } = await startApiServer({
    auditSink: sink,
    auditPolicy: parseAuditPolicy('apiVersion: audit.plat.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n', 'plat.io'),
  });
  try {
    assert.equal((await send('GET', '/api/v1/namespaces?watch=1&timeoutSeconds=1')).status, 200);
  } finally {
    await server.shutdown();
  }
  assert.deepEqual(
    sink.events.map((event) => [event.stage, event.responseStatus?.code]),
    [
      ['RequestReceived', undefined],
      ['ResponseStarted', 200],
      ['ResponseComplete', 200],
    ],
  );
});

test('audit log rotation: past --audit-log-maxsize the file is renamed to its backup name; --audit-log-maxbackup keeps the newest', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-audit-rotation-'));
  const path = join(dir, 'audit.log');
  let clock = Date.parse('2024-03-01T10:00:00.000Z');
  const log = new AuditFileLog(path, captureLogger().logger, { maxSizeBytes: 2000, maxBackups: 2, now: () => new Date((clock += 1000)) });
  const event = (i: number): AuditEvent => ({
    kind: 'Event',
    apiVersion: 'audit.plat.io/v1',
    level: 'Metadata',
    auditID: `id-${String(i).padStart(4, '0')}`,
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces',
    verb: 'list',
    user: { username: 'admin' },
    sourceIPs: ['127.0.0.1'],
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: '2024-03-01T10:00:00.000000Z',
    stageTimestamp: '2024-03-01T10:00:00.000000Z',
  });
  try {
    for (let i = 0; i < 100; i++) log.write(event(i));
    await log.close();
    // Let the streams of rotated files finish too.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const files = (await readdir(dir)).sort();
    assert.equal(files.length, 3, files.join(' '));
    assert.match(files[0]!, /^audit-2024-03-01T10-00-\d\d\.000\.log$/);
    assert.match(files[1]!, /^audit-2024-03-01T10-00-\d\d\.000\.log$/);
    assert.equal(files[2], 'audit.log');
    const ids: string[] = [];
    for (const file of files) {
      const text = await readFile(join(dir, file), 'utf8');
      assert.ok(Buffer.byteLength(text) <= 2000, `${file} is ${Buffer.byteLength(text)} bytes`);
      ids.push(...text.trim().split('\n').map((line) => (JSON.parse(line) as AuditEvent).auditID));
    }
    // The two newest backups and the live file hold the last events, in order, none twice.
    assert.deepEqual(ids, ids.slice().sort());
    assert.equal(ids.at(-1), 'id-0099');
    assert.equal(new Set(ids).size, ids.length);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--audit-log-format=legacy: upstream\'s text line', () => {
  const line = legacyAuditLine({
    kind: 'Event',
    apiVersion: 'audit.plat.io/v1',
    level: 'Metadata',
    auditID: 'a1',
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/team/pods?limit=1',
    verb: 'list',
    user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
    impersonatedUser: { username: 'jane' },
    sourceIPs: ['10.0.0.7', '127.0.0.1'],
    userAgent: 'kubectl/v1.28.0',
    objectRef: { resource: 'pods', namespace: 'team', apiGroup: '', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: '2024-03-01T10:00:00.123400Z',
    stageTimestamp: '2024-03-01T10:00:00.200000Z',
  });
  assert.equal(
    line,
    '2024-03-01T10:00:00.1234Z AUDIT: id="a1" stage="ResponseComplete" ip="10.0.0.7" method="list" user="admin" groups="\\"system:masters\\",\\"system:authenticated\\"" as="jane" asgroups="<lookup>" user-agent="kubectl/v1.28.0" namespace="team" uri="/api/v1/namespaces/team/pods?limit=1" response="200"',
  );
});
