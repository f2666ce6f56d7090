import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, builtinKinds, leaseDefinition } from '@plat/api';
import type { ResourceDefinition } from '@plat/registry';
import type { AuditEvent, AuditSink } from '@plat/audit';
import { startApiServer } from './testing/index.js';
import { apiEnablement, parseRuntimeConfig } from './runtime-config.js';

const enablement = (...items: string[]) => apiEnablement(parseRuntimeConfig(items), builtinDefinitions, 'plat.io');
const networking = 'networking.plat.io';
const rbac = 'rbac.authorization.plat.io';

const cases: { name: string; items: string[]; check: [group: string, version: string, resource: string, enabled: boolean][] }[] = [
  { name: 'defaults: GA on, alpha off', items: [], check: [['', 'v1', 'namespaces', true], [networking, 'v1alpha1', 'ipaddresses', false]] },
  { name: 'a group version on, value omitted', items: ['networking.plat.io/v1alpha1'], check: [[networking, 'v1alpha1', 'ipaddresses', true]] },
  { name: 'the k8s.io form of a group', items: ['networking.k8s.io/v1alpha1=true'], check: [[networking, 'v1alpha1', 'ipaddresses', true]] },
  { name: 'api/alpha', items: ['api/alpha=true'], check: [[networking, 'v1alpha1', 'ipaddresses', true], ['', 'v1', 'namespaces', true]] },
  { name: 'api/all=false, then one group back on', items: ['api/all=false', `${rbac}/v1`], check: [['', 'v1', 'namespaces', false], [rbac, 'v1', 'roles', true]] },
  { name: 'a resource off inside an enabled version', items: [`${rbac}/v1/roles=false`], check: [[rbac, 'v1', 'roles', false], [rbac, 'v1', 'rolebindings', true]] },
  { name: 'a resource on wins over its version off', items: [`${rbac}/v1=false`, `${rbac}/v1/roles=true`], check: [[rbac, 'v1', 'roles', true], [rbac, 'v1', 'clusterroles', false]] },
  {
    name: 'the policy APIs: a beta version new since 1.24 is off by default, as the alpha one',
    items: [],
    check: [['admissionregistration.plat.io', 'v1beta1', 'validatingadmissionpolicies', false], ['admissionregistration.plat.io', 'v1alpha1', 'validatingadmissionpolicybindings', false]],
  },
  {
    name: 'the policy APIs: on by their group version, or by api/beta',
    items: ['admissionregistration.k8s.io/v1beta1=true'],
    check: [['admissionregistration.plat.io', 'v1beta1', 'validatingadmissionpolicies', true], ['admissionregistration.plat.io', 'v1beta1', 'validatingadmissionpolicybindings', true], ['admissionregistration.plat.io', 'v1alpha1', 'validatingadmissionpolicies', false]],
  },
  { name: 'api/beta turns on the beta versions that are off by default', items: ['api/beta=true'], check: [['admissionregistration.plat.io', 'v1beta1', 'validatingadmissionpolicies', true]] },
  { name: 'the core group as v1 and api/v1', items: ['api/v1/serviceaccounts=false', 'v1/limitranges=false'], check: [['', 'v1', 'serviceaccounts', false], ['', 'v1', 'limitranges', false], ['', 'v1', 'namespaces', true]] },
];

for (const { name, items, check } of cases) {
  test(`runtime-config: ${name}`, () => {
    const enabled = enablement(...items);
    for (const [group, version, resource, want] of check) assert.equal(enabled(group, version, resource), want, `${group}/${version}/${resource}`);
  });
}

test('runtime-config: syntax and unknown APIs are errors', () => {
  assert.throws(() => parseRuntimeConfig(['api/all=yes']), /invalid value "yes" of api\/all: must be true or false/);
  assert.throws(() => parseRuntimeConfig(['a/b/c/d']), /must be api\/all/);
  assert.throws(() => enablement('nosuch.plat.io/v1'), /unknown API "nosuch.plat.io\/v1"/);
  assert.throws(() => enablement(`${networking}/v1alpha1/widgets`), /unknown API/);
});

test('runtime-config: a disabled version leaves discovery and OpenAPI and answers 404; alpha is off by default', async () => {
  const off = await startApiServer({}, { runtimeConfig: parseRuntimeConfig([`${rbac}/v1/roles=false`]) });
  try {
    assert.equal((await off.get('/apis/networking.plat.io/v1alpha1/ipaddresses')).status, 404);
    assert.equal((await off.get('/apis/networking.plat.io/v1alpha1')).status, 404);
    assert.ok(!(await off.get('/apis')).body.includes('networking.plat.io/v1alpha1'));
    assert.ok(!(await off.get('/openapi/v3')).body.includes('networking.plat.io/v1alpha1'));
    assert.equal((await off.get(`/apis/${rbac}/v1/roles`)).status, 404);
    assert.equal((await off.get(`/apis/${rbac}/v1/rolebindings`)).status, 200);
    const resources = JSON.parse((await off.get(`/apis/${rbac}/v1`)).body) as { resources: { name: string }[] };
    assert.ok(!resources.resources.some((r) => r.name === 'roles'));
    assert.ok(resources.resources.some((r) => r.name === 'rolebindings'));
  } finally {
    await off.server.shutdown();
  }
  const on = await startApiServer({}, { runtimeConfig: parseRuntimeConfig(['networking.k8s.io/v1alpha1']) });
  try {
    assert.equal((await on.get('/apis/networking.plat.io/v1alpha1/ipaddresses')).status, 200);
    assert.ok((await on.get('/apis')).body.includes('networking.plat.io/v1alpha1'));
    assert.ok((await on.get('/openapi/v3')).body.includes('apis/networking.plat.io/v1alpha1'));
  } finally {
    await on.server.shutdown();
  }
});

test('runtime-config: a needed API cannot be disabled', async () => {
  await assert.rejects(startApiServer({}, { runtimeConfig: parseRuntimeConfig(['v1/namespaces=false']) }), /v1\/namespaces cannot be disabled/);
});

test('deprecated APIs: Warning 299, audit annotation and apiserver_requested_deprecated_apis', async () => {
  const events: AuditEvent[] = [];
  const auditSink: AuditSink = { write: (event) => void events.push(event), close: async () => {} };
  const leaseV1beta1 = { ...leaseDefinition, version: 'v1beta1', deprecated: { removedRelease: '1.40' } } as unknown as ResourceDefinition;
  const { server, get, send } = await startApiServer({ auditSink }, { definitions: [...builtinKinds, leaseV1beta1] });
  try {
    const old = await get('/apis/coordination.plat.io/v1beta1/namespaces/default/leases');
    assert.equal(old.status, 200, old.body);
    assert.equal(old.headers.warning, '299 - "coordination.plat.io/v1beta1 Lease is deprecated, unavailable in v1.40+"');
    const current = await send('GET', '/apis/coordination.plat.io/v1/namespaces/default/leases');
    assert.equal(current.headers.warning, undefined);
    const metrics = (await get('/metrics')).body;
    assert.ok(
      metrics.includes('apiserver_requested_deprecated_apis{group="coordination.plat.io",version="v1beta1",resource="leases",subresource="",removed_release="1.40"} 1'),
      metrics.split('\n').filter((line) => line.includes('deprecated')).join('\n'),
    );
    assert.ok(!metrics.includes('apiserver_requested_deprecated_apis{group="coordination.plat.io",version="v1"'));
  } finally {
    await server.shutdown();
  }
  const [deprecated, plain] = events.filter((event) => event.objectRef?.resource === 'leases');
  assert.equal(deprecated?.annotations?.['plat.io/deprecated'], 'true');
  assert.equal(deprecated?.annotations?.['plat.io/removed-release'], '1.40');
  assert.equal(plain?.annotations?.['plat.io/deprecated'], undefined);
});
