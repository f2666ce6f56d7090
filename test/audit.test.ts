// The audit log of a real replica: every acknowledged request has its line after SIGTERM, and an
// open watch gets its ResponseComplete line when shutdown ends it; with --audit-policy-file, the
// policy's levels and stages, and the annotations of the request (a deprecated version's, the
// authorizer's) in its events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminTokenFile, eventually, startApiserver } from './support/apiserver-process.js';

interface Event {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username?: string };
  objectRef?: { resource?: string; name?: string; apiVersion?: string };
  responseStatus: { code: number };
  level: string;
  annotations?: Record<string, string>;
  requestObject?: { metadata?: { name?: string } };
  responseObject?: { metadata?: { name?: string; managedFields?: unknown } };
}

test('audit log: no line lost on graceful shutdown, watches logged when they end', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-audit-'));
  const tokens = await adminTokenFile();
  const path = join(dir, 'audit.log');
  const server = await startApiserver(['--storage-backend=memory', `--token-auth-file=${tokens.file}`, `--audit-log-path=${path}`]);
  try {
    const token = tokens.token;
    const watch = await server.watch('/api/v1/namespaces?watch=1', { token });
    assert.equal(watch.status, 200);
    const ids = new Set<string>();
    for (let batch = 0; batch < 4; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => server.request('/api/v1/namespaces?limit=1', { token, headers: { 'Audit-ID': `req-${batch}-${i}` } })),
      );
      for (const res of responses) {
        assert.equal(res.status, 200);
        ids.add(String(res.headers['audit-id']));
      }
    }
    assert.equal(await server.stop(), 0);
    const events = (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Event);
    const logged = new Set(events.map((event) => event.auditID));
    assert.deepEqual([...ids].filter((id) => !logged.has(id)), [], 'every answered request is in the log');
    const watches = events.filter((event) => event.verb === 'watch');
    assert.equal(watches.length, 1);
    assert.equal(watches[0]!.stage, 'ResponseComplete');
    assert.equal(watches[0]!.user.username, 'admin');
    assert.deepEqual(watches[0]!.objectRef, { resource: 'namespaces', apiGroup: '', apiVersion: 'v1' });
  } finally {
    await server.stop();
    await tokens.cleanup();
    await rm(dir, { recursive: true, force: true });
  }
});

test('audit policy: levels and stages by rule; a deprecated version\'s, the authorizer\'s and an admission policy\'s annotations in the same events', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-e2e-audit-policy-'));
  const tokens = await adminTokenFile();
  const path = join(dir, 'audit.log');
  const policy = join(dir, 'policy.yaml');
  await writeFile(
    policy,
    [
      'apiVersion: audit.plat.io/v1',
      'kind: Policy',
      'omitStages: [RequestReceived]',
      'rules:',
      '- level: None',
      "  nonResourceURLs: ['/readyz*']",
      '- level: RequestResponse',
      '  omitManagedFields: true',
      '  resources: [{group: stable.example.com, resources: [crontabs]}]',
      '- level: Metadata',
      '',
    ].join('\n'),
  );
  const server = await startApiserver([
    '--storage-backend=memory',
    `--token-auth-file=${tokens.file}`,
    `--audit-log-path=${path}`,
    `--audit-policy-file=${policy}`,
    // Admission policies' annotations join the same events.
    '--feature-gates=ValidatingAdmissionPolicy=true',
    '--runtime-config=admissionregistration.plat.io/v1beta1=true',
  ]);
  const token = tokens.token;
  let policyProbe = '';
  const version = (name: string, storage: boolean) => ({
    name,
    served: true,
    storage,
    ...(name === 'v1beta1' && { deprecated: true }),
    schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } } },
  });
  try {
    await eventually('readyz', async () => (await server.request('/readyz')).status === 200);
    const crd = await server.request('/apis/apiextensions.plat.io/v1/customresourcedefinitions', {
      method: 'POST',
      token,
      body: {
        apiVersion: 'apiextensions.plat.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'crontabs.stable.example.com' },
        spec: { group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' }, versions: [version('v1', true), version('v1beta1', false)] },
      },
    });
    assert.equal(crd.status, 201, crd.body);
    await eventually('the CRD served', async () => (await server.request('/apis/stable.example.com/v1beta1/namespaces/default/crontabs', { token })).status === 200);
    const created = await server.request('/apis/stable.example.com/v1beta1/namespaces/default/crontabs', {
      method: 'POST',
      token,
      headers: { 'Audit-ID': 'deprecated-create' },
      body: { apiVersion: 'stable.example.com/v1beta1', kind: 'CronTab', metadata: { name: 'nightly' }, spec: { cronSpec: '0 0 * * *' } },
    });
    assert.equal(created.status, 201, created.body);
    assert.match(String(created.headers.warning), /stable\.example\.com\/v1beta1 CronTab is deprecated/);
    const read = await server.request('/apis/stable.example.com/v1/namespaces/default/crontabs/nightly', { token, headers: { 'Audit-ID': 'current-get' } });
    assert.equal(read.status, 200);
    const namespaces = await server.request('/api/v1/namespaces', { token, headers: { 'Audit-ID': 'metadata-list' } });
    assert.equal(namespaces.status, 200);

    // A policy whose failures are warned about and audited, with an audit annotation of its own.
    const admission = '/apis/admissionregistration.plat.io/v1beta1';
    const audited = await server.request(`${admission}/validatingadmissionpolicies`, {
      method: 'POST',
      token,
      body: {
        apiVersion: 'admissionregistration.plat.io/v1beta1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'named-accounts' },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['serviceaccounts'] }] },
          validations: [{ expression: '!object.metadata.name.startsWith("probe-")', message: 'probe accounts are audited' }],
          auditAnnotations: [{ key: 'owner', valueExpression: '"platform"' }],
        },
      },
    });
    assert.equal(audited.status, 201, audited.body);
    const bound = await server.request(`${admission}/validatingadmissionpolicybindings`, {
      method: 'POST',
      token,
      body: {
        apiVersion: 'admissionregistration.plat.io/v1beta1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'named-accounts' },
        spec: { policyName: 'named-accounts', validationActions: ['Warn', 'Audit'] },
      },
    });
    assert.equal(bound.status, 201, bound.body);
    // Once every replica's policies are in force, a probe account is created with the policy's warning.
    let probe = 0;
    await eventually('the policy in force', async () => {
      probe++;
      const created = await server.request('/api/v1/namespaces/default/serviceaccounts', {
        method: 'POST',
        token,
        headers: { 'Audit-ID': `probe-${probe}` },
        body: { metadata: { name: `probe-${probe}` } },
      });
      assert.equal(created.status, 201, created.body);
      return String(created.headers.warning ?? '').includes('probe accounts are audited');
    });
    policyProbe = `probe-${probe}`;
  } finally {
    await server.stop();
  }
  try {
    const events = (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Event);
    assert.deepEqual([...new Set(events.map((event) => event.stage))], ['ResponseComplete'], 'RequestReceived is omitted by the policy');
    assert.equal(events.filter((event) => event.requestURI.startsWith('/readyz')).length, 0, 'level None');
    const byId = (id: string): Event => {
      const found = events.filter((event) => event.auditID === id);
      assert.equal(found.length, 1, id);
      return found[0]!;
    };
    const deprecated = byId('deprecated-create');
    assert.equal(deprecated.level, 'RequestResponse');
    assert.equal(deprecated.annotations?.['plat.io/deprecated'], 'true');
    assert.equal(deprecated.annotations?.['authorization.plat.io/decision'], 'allow');
    assert.equal(deprecated.requestObject?.metadata?.name, 'nightly');
    assert.equal(deprecated.responseObject?.metadata?.name, 'nightly');
    assert.equal(deprecated.responseObject?.metadata?.managedFields, undefined, 'omitManagedFields');
    const current = byId('current-get');
    assert.equal(current.level, 'RequestResponse');
    assert.equal(current.annotations?.['plat.io/deprecated'], undefined, 'v1 is not deprecated');
    assert.equal(current.annotations?.['authorization.plat.io/decision'], 'allow');
    const metadata = byId('metadata-list');
    assert.equal(metadata.level, 'Metadata');
    assert.equal(metadata.responseObject, undefined);
    const policed = byId(policyProbe);
    assert.equal(policed.level, 'Metadata');
    assert.deepEqual(JSON.parse(policed.annotations?.['validation.policy.admission.plat.io/validation_failure'] ?? 'null'), [
      { message: 'probe accounts are audited', policy: 'named-accounts', binding: 'named-accounts', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);
    assert.equal(policed.annotations?.['named-accounts/owner'], 'platform');
    assert.equal(policed.annotations?.['authorization.plat.io/decision'], 'allow');
  } finally {
    await tokens.cleanup();
    await rm(dir, { recursive: true, force: true });
  }
});
