// Custom resource definitions that name a built-in group, answered as upstream 1.28 answers them:
// the built-in kinds' handlers claim every path of their group (genericapiserver's director hands
// /apis/<group>/... to the go-restful group web service), so the custom resources are 404s; plain
// discovery lists their versions first (the CRD registration controller's APIServices, priority
// 1000/100), the aggregated document keeps a built-in version's own resources and adds a new
// version before the built-in ones; deleting such a definition leaves the built-in objects alone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceDefinitions } from '@plat/api';
import { startApiServer, type ApiTestServer } from '../testing/index.js';

type Json = Record<string, any>;

const CRDS = '/apis/apiextensions.plat.io/v1/customresourcedefinitions';
const RBAC = 'rbac.authorization.plat.io';
const ADMISSION = 'admissionregistration.plat.io';
const AGGREGATED = { accept: 'application/json;g=apidiscovery.plat.io;v=v2beta1;as=APIGroupDiscoveryList' };

const crd = (group: string, version: string, plural: string, kind: string, scope = 'Namespaced'): Json => ({
  // A protected group's definition asserts its approval (any user with create on CRDs may).
  metadata: { name: `${plural}.${group}`, annotations: { 'api-approved.plat.io': 'https://github.com/kubernetes/kubernetes/pull/78458' } },
  spec: {
    group,
    scope,
    names: { plural, kind },
    versions: [{ name: version, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
});

describe('custom resource definitions of built-in groups', () => {
  let api: ApiTestServer;
  const json = async (path: string, headers: Record<string, string> = {}): Promise<Json> => {
    const response = await api.send('GET', path, undefined, headers);
    assert.equal(response.status, 200, `${path}: ${response.body}`);
    return JSON.parse(response.body) as Json;
  };
  const notFound = async (method: string, path: string, body?: unknown): Promise<void> => {
    const response = await api.send(method, path, body);
    assert.equal(response.status, 404, `${method} ${path}: ${response.body}`);
    const status = JSON.parse(response.body) as Json;
    assert.deepEqual([status.reason, status.message], ['NotFound', 'the server could not find the requested resource']);
  };
  const established = async (name: string): Promise<void> => {
    for (let i = 0; ; i++) {
      const object = await json(`${CRDS}/${name}`);
      if (object.status?.conditions?.some((c: Json) => c.type === 'Established' && c.status === 'True')) break;
      assert.ok(i < 200, `${name} is established`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The controller lists it a turn after Established.
    await new Promise((resolve) => setTimeout(resolve, 50));
  };
  const plainGroup = async (group: string): Promise<string[]> => (await json(`/apis/${group}`)).versions.map((v: Json) => v.version);
  const aggregatedGroup = async (group: string): Promise<Json> => (await json('/apis', AGGREGATED)).items.find((item: Json) => item.metadata.name === group);
  const plainGroupNames = async (): Promise<string[]> => (await json('/apis')).groups.map((g: Json) => g.name);

  before(async () => {
    api = await startApiServer({}, { customResources: customResourceDefinitions, runtimeConfig: [{ key: `${ADMISSION}/v1beta1`, enabled: true }] });
    assert.equal((await api.send('POST', '/api/v1/namespaces', { metadata: { name: 'default' } })).status, 201);
    const role = { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    assert.equal((await api.send('POST', `/apis/${RBAC}/v1/namespaces/default/roles`, role)).status, 201);
    // A custom group, to see where a demoted built-in group goes.
    assert.equal((await api.send('POST', CRDS, crd('zz.example.com', 'v1', 'things', 'Thing'))).status, 201);
    await established('things.zz.example.com');
  });
  after(() => api?.server.shutdown());

  it('a new version of a built-in group: listed first, as the preferred version, and every request a 404', async () => {
    // The probe's case: admissionregistration's v1 is not a built-in version here (no webhook
    // configurations), so a CRD's v1 is a new version of the group.
    assert.equal((await api.send('POST', CRDS, crd(ADMISSION, 'v1', 'validatingadmissionpolicies', 'ValidatingAdmissionPolicy', 'Cluster'))).status, 201);
    await established(`validatingadmissionpolicies.${ADMISSION}`);
    assert.deepEqual(await plainGroup(ADMISSION), ['v1', 'v1beta1']);
    assert.equal((await json(`/apis/${ADMISSION}`)).preferredVersion.version, 'v1');
    const aggregated = await aggregatedGroup(ADMISSION);
    assert.deepEqual(aggregated.versions.map((v: Json) => v.version), ['v1', 'v1beta1']);
    assert.deepEqual(aggregated.versions[0].resources.map((r: Json) => r.resource), ['validatingadmissionpolicies']);
    assert.ok(aggregated.versions[1].resources.some((r: Json) => r.resource === 'validatingadmissionpolicybindings'));
    // The built-in handlers claim the group's paths: nothing serves the CRD's.
    await notFound('GET', `/apis/${ADMISSION}/v1`);
    await notFound('GET', `/apis/${ADMISSION}/v1/validatingadmissionpolicies`);
    await notFound('POST', `/apis/${ADMISSION}/v1/validatingadmissionpolicies`, { apiVersion: `${ADMISSION}/v1`, kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' } });
    // The real policies are where they were.
    assert.equal((await api.send('GET', `/apis/${ADMISSION}/v1beta1/validatingadmissionpolicies`)).status, 200);
    // The group keeps its place: its built-in version's priority is the group's.
    const names = await plainGroupNames();
    assert.ok(names.indexOf(ADMISSION) < names.indexOf('zz.example.com'), names.join(' '));
  });

  it('a resource of a built-in version: not listed in the aggregated document, a 404; the plain document puts the version first', async () => {
    assert.equal((await api.send('POST', CRDS, crd(RBAC, 'v1', 'rolemirrors', 'RoleMirror'))).status, 201);
    await established(`rolemirrors.${RBAC}`);
    await notFound('GET', `/apis/${RBAC}/v1/namespaces/default/rolemirrors`);
    const v1 = await json(`/apis/${RBAC}/v1`);
    assert.ok(!v1.resources.some((r: Json) => r.name === 'rolemirrors'));
    const aggregated = await aggregatedGroup(RBAC);
    assert.deepEqual(aggregated.versions.map((v: Json) => v.version), ['v1']);
    assert.ok(!aggregated.versions[0].resources.some((r: Json) => r.resource === 'rolemirrors'));
    // Its only version's APIService now has a custom resource's priority: the group sorts among the
    // custom groups in plain /apis, by the APIService names (v1.rbac... before v1.zz...).
    const names = await plainGroupNames();
    assert.ok(names.indexOf(RBAC) > names.indexOf(ADMISSION) && names.indexOf(RBAC) < names.indexOf('zz.example.com'), names.join(' '));
    const aggregatedNames = (await json('/apis', AGGREGATED)).items.map((item: Json) => item.metadata.name);
    assert.ok(aggregatedNames.indexOf(RBAC) < aggregatedNames.indexOf(ADMISSION), 'the aggregated document keeps the built-in priority');
  });

  it("the built-in kind's own group, version and resource: the built-in answers, and deleting the CRD leaves its objects", async () => {
    assert.equal((await api.send('POST', CRDS, crd(RBAC, 'v1', 'roles', 'Role'))).status, 201);
    await established(`roles.${RBAC}`);
    const roles = await json(`/apis/${RBAC}/v1/namespaces/default/roles`);
    assert.deepEqual(roles.items.map((r: Json) => r.metadata.name), ['reader']);
    // A definition of a built-in group has nothing to clean up: it goes at once, and the Roles stay.
    const deleted = await api.send('DELETE', `${CRDS}/roles.${RBAC}`);
    assert.equal(deleted.status, 200, deleted.body);
    assert.equal((await api.send('GET', `${CRDS}/roles.${RBAC}`)).status, 404);
    assert.equal((await json(`/apis/${RBAC}/v1/namespaces/default/roles/reader`)).metadata.name, 'reader');
  });

  it('a new version of a built-in group that names a built-in resource: listed first, a 404; the built-in version serves', async () => {
    assert.equal((await api.send('POST', CRDS, crd(RBAC, 'v2', 'roles', 'Role'))).status, 201);
    await established(`roles.${RBAC}`);
    assert.deepEqual(await plainGroup(RBAC), ['v2', 'v1']);
    const aggregated = await aggregatedGroup(RBAC);
    assert.deepEqual(aggregated.versions.map((v: Json) => v.version), ['v2', 'v1']);
    await notFound('GET', `/apis/${RBAC}/v2/namespaces/default/roles`);
    assert.equal((await json(`/apis/${RBAC}/v1/namespaces/default/roles`)).items.length, 1);
    // Gone, and the group is as it was (rolemirrors still names v1).
    assert.equal((await api.send('DELETE', `${CRDS}/roles.${RBAC}`)).status, 200);
    for (let i = 0; (await plainGroup(RBAC)).length !== 1; i++) {
      assert.ok(i < 100, 'v2 is no longer listed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('a custom group is served as before', async () => {
    assert.equal((await api.send('POST', '/apis/zz.example.com/v1/namespaces/default/things', { apiVersion: 'zz.example.com/v1', kind: 'Thing', metadata: { name: 't' } })).status, 201);
  });
});
