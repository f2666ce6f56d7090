// A custom resource's scale subresource over HTTP: served as autoscaling/v1 Scale by the parent's
// store, and said so by discovery (every form), OpenAPI, Table and Protobuf.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { builtinKinds, customResourceDefinitions, customResourceScale, objectMetaSchema, type CustomResourceDefinition } from '@plat/api';
import { decodeObject, encodeObject } from '@plat/protobuf';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { startApiServer, type ApiTestServer } from './testing/index.js';
import { testCert } from './testing/index.js';

const open = (properties: Record<string, unknown>) => ({ type: 'object', properties, additionalProperties: false });

/** A test-only stand-in for what the custom resource builder makes of a definition with subresources status and scale. */
const widgets: ResourceDefinition = {
  group: 'stable.example.com',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singularName: 'widget',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
  schema: open({
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: objectMetaSchema,
    spec: open({ replicas: { type: 'integer' }, color: { type: 'string' } }),
    status: open({ replicas: { type: 'integer' }, selector: { type: 'string' } }),
  }),
  strategy: {
    tracksGeneration: true,
    prepareForUpdate: (object, old) => {
      object.status = old.status;
    },
    validate: () => [],
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
  subresources: {
    status: { merge: (object, old) => ({ ...old, status: object.status }), validateUpdate: () => [] },
    scale: customResourceScale({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' }),
  },
};

const base = '/apis/stable.example.com/v1/namespaces/default/widgets';

/** A CRD with both subresources, whose versions the custom resource builder makes (the CRD kind itself need not be served). */
const gadgetsCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.shop.example.com' },
  spec: {
    group: 'shop.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { count: { type: 'integer', maximum: 5 } } }, status: { type: 'object', properties: { count: { type: 'integer' } } } } } },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.count', statusReplicasPath: '.status.count' } },
      },
    ],
  },
  status: { acceptedNames: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' }, storedVersions: ['v1'] },
};
const gadgets = '/apis/shop.example.com/v1/namespaces/default/gadgets';

/** A request whose answer is kept as bytes (Protobuf). */
async function sendBytes(port: number, method: string, path: string, headers: Record<string, string>, body?: Uint8Array): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const { ca } = await testCert();
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, method, headers: { ...headers, ...(body && { 'content-length': String(body.length) }) }, ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the scale subresource over HTTP', () => {
  let server: ApiTestServer;
  const json = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await server.send(method, path, body, headers);
    return { ...res, object: res.body ? (JSON.parse(res.body) as Record<string, any>) : undefined };
  };

  before(async () => {
    server = await startApiServer({}, { definitions: [...builtinKinds, widgets, ...customResourceDefinitions(gadgetsCRD)] });
    assert.equal((await json('POST', '/api/v1/namespaces', { metadata: { name: 'default' } })).status, 201);
    const created = await json('POST', base, { apiVersion: 'stable.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1, color: 'blue' } });
    assert.equal(created.status, 201, created.body);
    const status = await json('PUT', `${base}/w/status`, { ...created.object, status: { replicas: 1, selector: 'app=w' } });
    assert.equal(status.status, 200, status.body);
  });
  after(() => server.server.shutdown());

  it('discovery lists widgets/scale as autoscaling/v1 Scale, in the resource list and the aggregated document', async () => {
    const list = (await json('GET', '/apis/stable.example.com/v1')).object!;
    const entries = Object.fromEntries((list.resources as { name: string }[]).map((r) => [r.name, r]));
    assert.deepEqual(entries['widgets/scale'], {
      name: 'widgets/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    assert.deepEqual(entries['widgets/status'], { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] });

    const accept = 'application/json;g=apidiscovery.plat.io;v=v2;as=APIGroupDiscoveryList';
    const aggregated = (await json('GET', '/apis', undefined, { accept })).object!;
    const group = (aggregated.items as { metadata: { name: string }; versions: { resources: { resource: string; subresources: unknown[] }[] }[] }[]).find((g) => g.metadata.name === 'stable.example.com')!;
    assert.deepEqual(group.versions[0]!.resources.find((r) => r.resource === 'widgets')!.subresources, [
      { subresource: 'status', responseKind: { group: 'stable.example.com', version: 'v1', kind: 'Widget' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('OpenAPI: the scale operations read and write io.plat.api.autoscaling.v1.Scale', async () => {
    const v2 = (await json('GET', '/openapi/v2')).object!;
    const path = v2.paths['/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/scale'];
    assert.deepEqual(Object.keys(path).sort(), ['get', 'parameters', 'patch', 'put']);
    const scaleRef = { $ref: '#/definitions/io.plat.api.autoscaling.v1.Scale' };
    assert.equal(path.get.operationId, 'readStableExampleComV1NamespacedWidgetScale');
    assert.deepEqual(path.get.responses['200'].schema, scaleRef);
    assert.deepEqual(path.put.parameters[0].schema, scaleRef);
    assert.deepEqual(path.patch.responses['200'].schema, scaleRef);
    assert.deepEqual(path.get['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
    // The status subresource still shows the object itself.
    const status = v2.paths['/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/status'];
    assert.match(status.get.responses['200'].schema.$ref, /^#\/definitions\/.*\.v1\.Widget$/);
    const definition = v2.definitions['io.plat.api.autoscaling.v1.Scale'];
    assert.deepEqual(definition['x-kubernetes-group-version-kind'], [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }]);
    assert.deepEqual(definition.properties.metadata, { $ref: '#/definitions/io.plat.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
    assert.deepEqual(definition.properties.status, { $ref: '#/definitions/io.plat.api.autoscaling.v1.ScaleStatus' });
    assert.deepEqual(v2.definitions['io.plat.api.autoscaling.v1.ScaleStatus'].required, ['replicas']);

    const v3 = (await json('GET', '/openapi/v3/apis/stable.example.com/v1')).object!;
    assert.ok(v3.components.schemas['io.plat.api.autoscaling.v1.Scale']);
    const get = v3.paths['/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/scale'].get;
    assert.deepEqual(get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/io.plat.api.autoscaling.v1.Scale' });
  });

  it('GET answers the Scale, or a Table of it', async () => {
    const widget = (await json('GET', `${base}/w`)).object!;
    const { status, object } = await json('GET', `${base}/w/scale`);
    assert.equal(status, 200);
    assert.deepEqual(object, {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'w',
        namespace: 'default',
        uid: widget.metadata.uid,
        resourceVersion: widget.metadata.resourceVersion,
        creationTimestamp: widget.metadata.creationTimestamp,
      },
      spec: { replicas: 1 },
      status: { replicas: 1, selector: 'app=w' },
    });
    const table = (await json('GET', `${base}/w/scale`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.plat.io' })).object!;
    assert.equal(table.kind, 'Table');
    assert.deepEqual(table.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Desired', 'Available', 'Age']);
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ['w', 1, 1]);
    assert.equal(table.rows[0].object.kind, 'PartialObjectMetadata');
  });

  it('PUT takes a Scale: type meta, fieldValidation and the replicas checked as upstream', async () => {
    const put = (body: unknown, query = '') => json('PUT', `${base}/w/scale${query}`, body);
    const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { replicas: 2 } };
    const widgetType = await put({ ...scale, apiVersion: 'stable.example.com/v1' });
    assert.equal(widgetType.status, 400);
    assert.match(widgetType.object!.message, /the API version in the data \(stable.example.com\/v1\) does not match the expected API version \(autoscaling\/v1\)/);
    const strict = await put({ ...scale, spec: { replicas: 2, color: 'red' } }, '?fieldValidation=Strict');
    assert.equal(strict.status, 400);
    assert.match(strict.object!.message, /strict decoding error: unknown field "spec.color"/);
    const tooMany = await put({ ...scale, spec: { replicas: 2 ** 31 } });
    assert.equal(tooMany.status, 400, 'replicas is an int32');
    const negative = await put({ ...scale, spec: { replicas: -1 } });
    assert.equal(negative.status, 422);
    assert.equal(negative.object!.message, 'Widget.stable.example.com "w" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer');
    const stale = await put({ ...scale, metadata: { name: 'w', resourceVersion: '1' } });
    assert.equal(stale.status, 409);

    const ok = await put({ ...scale, status: { replicas: 9 } });
    assert.equal(ok.status, 200, ok.body);
    assert.deepEqual([ok.object!.kind, ok.object!.spec, ok.object!.status], ['Scale', { replicas: 2 }, { replicas: 1, selector: 'app=w' }]);
    const widget = (await json('GET', `${base}/w`)).object!;
    assert.deepEqual(widget.spec, { replicas: 2, color: 'blue' });
    assert.deepEqual(widget.status, { replicas: 1, selector: 'app=w' });
    assert.equal(widget.metadata.generation, 2);
  });

  it('PATCH of every type works on the Scale', async () => {
    const patches: [string, string, unknown, number][] = [
      ['application/json-patch+json', '', [{ op: 'replace', path: '/spec/replicas', value: 3 }], 3],
      ['application/merge-patch+json', '', { spec: { replicas: 4 } }, 4],
      ['application/strategic-merge-patch+json', '', { spec: { replicas: 5 } }, 5],
      ['application/apply-patch+yaml', '?fieldManager=hpa&force=true', { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 6 } }, 6],
    ];
    for (const [type, query, patch, replicas] of patches) {
      const res = await json('PATCH', `${base}/w/scale${query}`, patch, { 'content-type': type });
      assert.equal(res.status, 200, `${type}: ${res.body}`);
      assert.deepEqual(res.object!.spec, { replicas }, type);
      assert.equal((await json('GET', `${base}/w`)).object!.spec.replicas, replicas);
    }
    const widget = (await json('GET', `${base}/w`)).object!;
    const hpa = (widget.metadata.managedFields as { manager: string; operation: string; subresource?: string; fieldsV1: unknown }[]).find((e) => e.manager === 'hpa')!;
    assert.deepEqual(hpa, { ...hpa, operation: 'Apply', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    const dryRun = await json('PATCH', `${base}/w/scale?dryRun=All`, { spec: { replicas: 0 } }, { 'content-type': 'application/merge-patch+json' });
    assert.deepEqual([dryRun.status, dryRun.object!.spec], [200, {}]);
    assert.equal((await json('GET', `${base}/w`)).object!.spec.replicas, 6);
  });

  it('a custom resource\u2019s, as its definition builds it: no strategic merge patch (415, as on the object), its own rules', async () => {
    assert.equal((await json('POST', gadgets, { apiVersion: 'shop.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { count: 1 } })).status, 201);
    const patch = (type: string, body: unknown) => json('PATCH', `${gadgets}/g/scale`, body, { 'content-type': type });
    const strategic = await patch('application/strategic-merge-patch+json', { spec: { replicas: 2 } });
    assert.equal(strategic.status, 415);
    assert.match(strategic.object!.message, /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml$/);
    const merged = await patch('application/merge-patch+json', { spec: { replicas: 2 } });
    assert.deepEqual([merged.status, merged.object!.kind, merged.object!.spec], [200, 'Scale', { replicas: 2 }]);
    assert.deepEqual((await json('GET', `${gadgets}/g`)).object!.spec, { count: 2 });
    const tooMany = await patch('application/merge-patch+json', { spec: { replicas: 6 } });
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.object!.message, /^Gadget.shop.example.com "g" is invalid: spec.count: Invalid value: 6: spec.count in body should be less than or equal to 5$/);
  });

  it('other verbs are not served on it', async () => {
    assert.equal((await json('DELETE', `${base}/w/scale`)).status, 405);
    assert.equal((await json('POST', `${base}/w/scale`, {})).status, 405);
    assert.equal((await json('GET', `${base}/missing/scale`)).status, 404);
  });

  it('Protobuf: the Scale in k8s.io.api.autoscaling.v1.Scale, both ways', async () => {
    const protobuf = 'application/vnd.plat.protobuf';
    const got = await sendBytes(server.port, 'GET', `${base}/w/scale`, { accept: protobuf });
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], protobuf);
    const scale = decodeObject(got.body) as KubeObject & { spec: { replicas: number } };
    assert.deepEqual([scale.apiVersion, scale.kind, scale.metadata.name, scale.spec], ['autoscaling/v1', 'Scale', 'w', { replicas: 6 }]);
    const body = encodeObject({ ...scale, spec: { replicas: 7 } });
    const put = await sendBytes(server.port, 'PUT', `${base}/w/scale`, { accept: 'application/json', 'content-type': protobuf }, body);
    assert.equal(put.status, 200, put.body.toString());
    assert.deepEqual((JSON.parse(put.body.toString()) as { spec: unknown }).spec, { replicas: 7 });
  });
});
