// The CRD controller in one process: names decided, Established, served (discovery, OpenAPI, the
// object count), a conflicting definition refused its names, and deletion's cleanup finalizer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { customResourceDefinitions } from '@plat/api';
import { startApiServer } from '../testing/index.js';

const crd = (plural: string, kind: string, shortNames: string[] = []) => ({
  apiVersion: 'apiextensions.plat.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural, kind, shortNames },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
  },
});

type Crd = { status?: { acceptedNames?: { kind?: string }; conditions?: { type: string; status: string; reason?: string; message?: string }[] }; metadata: { finalizers?: string[]; deletionTimestamp?: string } };

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('CRD controller: a definition is Established, served, counted and published; a conflicting one is not', async () => {
  const { server, send, get } = await startApiServer({}, { customResources: customResourceDefinitions, objectCountIntervalMs: 50 });
  const crds = '/apis/apiextensions.plat.io/v1/customresourcedefinitions';
  try {
    assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'default' } })).status, 201);
    assert.equal((await send('POST', crds, crd('widgets', 'Widget', ['wd']))).status, 201);
    const widgets = await until('Established', async () => {
      const object = JSON.parse((await send('GET', `${crds}/widgets.example.com`)).body) as Crd;
      return object.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? object : undefined;
    });
    assert.equal(widgets.status?.acceptedNames?.kind, 'Widget');
    await until('served', async () => ((await send('GET', '/apis/example.com/v1/namespaces/default/widgets')).status === 200 ? true : undefined));
    assert.equal((await send('POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } })).status, 201);
    const group = JSON.parse((await send('GET', '/apis/example.com')).body) as { preferredVersion: { groupVersion: string } };
    assert.equal(group.preferredVersion.groupVersion, 'example.com/v1');
    assert.ok((await get('/openapi/v3/apis/example.com/v1')).body.includes('com.example.v1.Widget'));
    await until('counted', async () => ((await get('/metrics')).body.includes('apiserver_storage_objects{resource="widgets.example.com"} 1') ? true : undefined));

    // Another kind of the same group asking for a short name in use: refused, and not served.
    assert.equal((await send('POST', crds, crd('gadgets', 'Gadget', ['wd']))).status, 201);
    const gadgets = await until('names decided', async () => {
      const object = JSON.parse((await send('GET', `${crds}/gadgets.example.com`)).body) as Crd;
      return object.status?.conditions?.some((c) => c.type === 'NamesAccepted') ? object : undefined;
    });
    const accepted = gadgets.status?.conditions?.find((c) => c.type === 'NamesAccepted');
    assert.deepEqual([accepted?.status, accepted?.reason, accepted?.message], ['False', 'ShortNamesConflict', '"wd" is already in use']);
    const established = gadgets.status?.conditions?.find((c) => c.type === 'Established');
    assert.deepEqual([established?.status, established?.reason], ['False', 'NotAccepted']);
    assert.equal((await send('GET', '/apis/example.com/v1/namespaces/default/gadgets')).status, 404);

    // Deleting marks it with the cleanup finalizer (the controller-manager removes it) and Terminating;
    // creates are refused meanwhile.
    const marked = JSON.parse((await send('DELETE', `${crds}/widgets.example.com`)).body) as Crd;
    assert.deepEqual(marked.metadata.finalizers, ['customresourcecleanup.apiextensions.plat.io']);
    assert.ok(marked.metadata.deletionTimestamp);
    const terminating = marked.status?.conditions?.find((c) => c.type === 'Terminating');
    assert.deepEqual([terminating?.status, terminating?.reason], ['True', 'InstanceDeletionPending']);
    const refused = await until('creates refused', async () => {
      const response = await send('POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'late' } });
      return response.status === 405 ? response : undefined;
    });
    assert.equal((JSON.parse(refused.body) as { message: string }).message, 'create not allowed while custom resource definition is terminating');
    // Once the finalizer goes, so does the definition, and the resource with it.
    const current = JSON.parse((await send('GET', `${crds}/widgets.example.com`)).body) as Crd & Record<string, unknown>;
    assert.equal((await send('PUT', `${crds}/widgets.example.com/status`, { ...current, metadata: { ...current.metadata, finalizers: [] } })).status, 200);
    assert.equal((await send('GET', `${crds}/widgets.example.com`)).status, 404);
    await until('no longer served', async () => ((await send('GET', '/apis/example.com/v1/namespaces/default/widgets')).status === 404 ? true : undefined));
    await until('no longer counted', async () => (!(await get('/metrics')).body.includes('resource="widgets.example.com"') ? true : undefined));
  } finally {
    await server.shutdown();
  }
});

test('CRD controller: a CRD of a protected group gets the API approval condition its annotation earns', async () => {
  const { server, send } = await startApiServer({}, { customResources: customResourceDefinitions });
  const crds = '/apis/apiextensions.plat.io/v1/customresourcedefinitions';
  try {
    const protectedCrd = (plural: string, annotation: string) => {
      const object = crd(plural, plural.slice(0, 1).toUpperCase() + plural.slice(1, -1));
      return {
        ...object,
        metadata: { name: `${plural}.things.plat.io`, annotations: { 'api-approved.plat.io': annotation } },
        spec: { ...object.spec, group: 'things.plat.io' },
      };
    };
    const cases: [plural: string, annotation: string, status: string, reason: string, message: string][] = [
      ['approveds', 'https://github.com/kubernetes/kubernetes/pull/78458', 'True', 'ApprovedAnnotation', 'approved in https://github.com/kubernetes/kubernetes/pull/78458'],
      ['bypasseds', 'unapproved, experimental-only', 'False', 'UnapprovedAnnotation', 'not approved: "unapproved, experimental-only"'],
    ];
    for (const [plural, annotation] of cases) assert.equal((await send('POST', crds, protectedCrd(plural, annotation))).status, 201);
    for (const [plural, , status, reason, message] of cases) {
      const condition = await until(`${plural} approval condition`, async () => {
        const object = JSON.parse((await send('GET', `${crds}/${plural}.things.plat.io`)).body) as Crd;
        return object.status?.conditions?.find((c) => c.type === 'KubernetesAPIApprovalPolicyConformant');
      });
      assert.deepEqual([condition.status, condition.reason, condition.message], [status, reason, message]);
    }
    // Outside the protected groups, no such condition.
    assert.equal((await send('POST', crds, crd('plains', 'Plain'))).status, 201);
    const plain = await until('plain Established', async () => {
      const object = JSON.parse((await send('GET', `${crds}/plains.example.com`)).body) as Crd;
      return object.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? object : undefined;
    });
    assert.equal(plain.status?.conditions?.some((c) => c.type === 'KubernetesAPIApprovalPolicyConformant'), false);
  } finally {
    await server.shutdown();
  }
});
