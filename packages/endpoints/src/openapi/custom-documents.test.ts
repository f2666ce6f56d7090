// Custom resources in the OpenAPI documents beside the built-in kinds: their group version's v3
// document as upstream's CRD builder makes it, their paths and operations (IDs, tags, parameters,
// bodies, responses, media types) in both dialects, the status and scale subresources, and the
// Protobuf form of /openapi/v2 with a CRD schema in it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, customResourceScale, objectMetaSchema } from '@plat/api';
import { resolveResource, type JSONSchema, type KubeObject, type ResourceDefinition, type ResolvedResource } from '@plat/registry';
import { buildOpenAPIDocuments } from './documents.js';
import { swaggerToProtobuf } from './protobuf-v2.js';

type Json = Record<string, any>;

const ALL_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const;
const subresource = { merge: (object: KubeObject) => object, validateUpdate: () => [] };
/** The scale subresource as the custom resource builder makes it: served as autoscaling/v1 Scale. */
const scale = customResourceScale({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' });

/** A custom resource's version as the CRD controller hands it to the store: unstructured, with its CRD schema. */
function custom(overrides: Partial<ResourceDefinition> & Pick<ResourceDefinition, 'group' | 'kind' | 'resource' | 'namespaced'>, schema?: JSONSchema): ResourceDefinition {
  return {
    version: 'v1',
    singularName: overrides.kind.toLowerCase(),
    verbs: ALL_VERBS,
    schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMetaSchema } },
    strategy: { validate: () => [], validateUpdate: () => [] },
    allowCreateOnUpdate: false,
    unstructured: { storageVersion: 'v1', prune: () => [], default: () => false, ...(schema && { openAPIV3Schema: schema }) },
    ...overrides,
  };
}

const cronTabs = custom(
  { group: 'stable.example.com', kind: 'CronTab', resource: 'crontabs', namespaced: true, subresources: { status: subresource, scale } },
  {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          cronSpec: { type: 'string', description: 'The schedule.' },
          replicas: { type: 'integer', default: 1 },
          port: { 'x-kubernetes-int-or-string': true },
          when: { type: 'string', nullable: true, enum: ['now', null] },
          rules: { type: 'array', items: { type: 'object', properties: { rule: { type: 'string' } } }, 'x-kubernetes-validations': [{ rule: 'size(self) < 5' }] },
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  },
);
// Cluster-scoped, no schema, fewer verbs: only what it serves is published.
const instances = custom({ group: 'things.example.org', kind: 'Instance', resource: 'instances', namespaced: false, verbs: ['get', 'list', 'create', 'delete'] });

const domain = 'k8s.io';
const resources: ResolvedResource[] = [...builtinDefinitions, cronTabs, instances].map((definition) => resolveResource(definition, domain));
const documents = buildOpenAPIDocuments(resources, { domain, version: 'v1.28.0' }) as { v2: Json; v3: Map<string, Json> };
const cronV3 = documents.v3.get('apis/stable.example.com/v1')!;
const instanceV3 = documents.v3.get('apis/things.example.org/v1')!;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

test('each custom group version has its own v3 document, as upstream\u2019s CRD builder makes it', () => {
  assert.ok(cronV3 && instanceV3);
  assert.deepEqual(cronV3.info, { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' });
  assert.equal(cronV3.openapi, '3.0.0');
  assert.equal(cronV3.security, undefined);
  assert.equal(cronV3.components.securitySchemes, undefined);
  assert.deepEqual(Object.keys(cronV3.components.schemas), [
    'com.example.stable.v1.CronTab',
    'com.example.stable.v1.CronTabList',
    'io.k8s.api.autoscaling.v1.Scale',
    'io.k8s.api.autoscaling.v1.ScaleSpec',
    'io.k8s.api.autoscaling.v1.ScaleStatus',
    'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    'io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause',
    'io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails',
  ]);
  // A built-in group version keeps the server's info and security.
  assert.equal(documents.v3.get('apis/rbac.authorization.k8s.io/v1')!.info.title, 'Kubernetes');
});

test('the schemas: the CRD\u2019s in v3, converted and without defaults in v2; ObjectMeta shared with the built-in kinds', () => {
  const v3 = cronV3.components.schemas['com.example.stable.v1.CronTab'];
  const v2 = documents.v2.definitions['com.example.stable.v1.CronTab'];
  assert.deepEqual(v3.properties.spec.properties.replicas, { type: 'integer', default: 1 });
  assert.deepEqual(v2.properties.spec.properties.replicas, { type: 'integer' });
  assert.deepEqual(v3.properties.spec.properties.when, { type: 'string', nullable: true, enum: ['now', null] });
  assert.deepEqual(v2.properties.spec.properties.when, { enum: ['now', null] });
  assert.deepEqual(v3.properties.metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
  assert.equal(v2.properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.deepEqual(v2['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
  assert.deepEqual(documents.v2.definitions['com.example.stable.v1.CronTabList']['x-kubernetes-group-version-kind'], [
    { group: 'stable.example.com', kind: 'CronTabList', version: 'v1' },
  ]);
  // One ObjectMeta for every kind, built-in or custom.
  assert.deepEqual(documents.v2.definitions['io.k8s.api.rbac.v1.Role'].properties.metadata, { $ref: v2.properties.metadata.$ref });
  assert.ok(!JSON.stringify(documents.v2.definitions['com.example.stable.v1.CronTab']).includes('"default"'));
});

test('a version without a schema is published as an object, and its list as any list', () => {
  const schemas = instanceV3.components.schemas;
  assert.deepEqual(schemas['org.example.things.v1.Instance'], {
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: 'things.example.org', kind: 'Instance', version: 'v1' }],
  });
  assert.deepEqual(schemas['org.example.things.v1.InstanceList'].properties.items.items, { $ref: '#/components/schemas/org.example.things.v1.Instance' });
});

const crontabs = '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs';
const instancesPath = '/apis/things.example.org/v1/instances';
const LIST_OPTIONS = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch'];

/** What upstream's builder publishes for each route: ID, action, description, the operation's own parameters, responses. */
const operationCases: { path: string; method: string; id: string; action: string; description: string; parameters: string[]; responses: Record<string, string> }[] = [
  {
    path: '/apis/stable.example.com/v1/crontabs',
    method: 'get',
    id: 'listStableExampleComV1CronTabForAllNamespaces',
    action: 'list',
    description: 'list objects of kind CronTab',
    // The path's only operation: all its parameters are the path's.
    parameters: [],
    responses: { '200': 'com.example.stable.v1.CronTabList' },
  },
  { path: crontabs, method: 'get', id: 'listStableExampleComV1NamespacedCronTab', action: 'list', description: 'list objects of kind CronTab', parameters: LIST_OPTIONS, responses: { '200': 'com.example.stable.v1.CronTabList' } },
  {
    path: crontabs,
    method: 'post',
    id: 'createStableExampleComV1NamespacedCronTab',
    action: 'post',
    description: 'create a CronTab',
    parameters: ['dryRun', 'fieldManager', 'fieldValidation'],
    responses: { '200': 'com.example.stable.v1.CronTab', '201': 'com.example.stable.v1.CronTab', '202': 'com.example.stable.v1.CronTab' },
  },
  {
    path: crontabs,
    method: 'delete',
    id: 'deleteStableExampleComV1CollectionNamespacedCronTab',
    action: 'deletecollection',
    description: 'delete collection of CronTab',
    parameters: LIST_OPTIONS,
    responses: { '200': 'io.k8s.apimachinery.pkg.apis.meta.v1.Status' },
  },
  { path: `${crontabs}/{name}`, method: 'get', id: 'readStableExampleComV1NamespacedCronTab', action: 'get', description: 'read the specified CronTab', parameters: ['resourceVersion'], responses: { '200': 'com.example.stable.v1.CronTab' } },
  {
    path: `${crontabs}/{name}`,
    method: 'put',
    id: 'replaceStableExampleComV1NamespacedCronTab',
    action: 'put',
    description: 'replace the specified CronTab',
    parameters: ['dryRun', 'fieldManager', 'fieldValidation'],
    responses: { '200': 'com.example.stable.v1.CronTab', '201': 'com.example.stable.v1.CronTab' },
  },
  {
    path: `${crontabs}/{name}`,
    method: 'delete',
    id: 'deleteStableExampleComV1NamespacedCronTab',
    action: 'delete',
    description: 'delete a CronTab',
    parameters: ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'],
    responses: { '200': 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', '202': 'io.k8s.apimachinery.pkg.apis.meta.v1.Status' },
  },
  {
    path: `${crontabs}/{name}`,
    method: 'patch',
    id: 'patchStableExampleComV1NamespacedCronTab',
    action: 'patch',
    description: 'partially update the specified CronTab',
    parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'],
    responses: { '200': 'com.example.stable.v1.CronTab' },
  },
  { path: `${crontabs}/{name}/status`, method: 'get', id: 'readStableExampleComV1NamespacedCronTabStatus', action: 'get', description: 'read status of the specified CronTab', parameters: ['resourceVersion'], responses: { '200': 'com.example.stable.v1.CronTab' } },
  {
    path: `${crontabs}/{name}/status`,
    method: 'put',
    id: 'replaceStableExampleComV1NamespacedCronTabStatus',
    action: 'put',
    description: 'replace status of the specified CronTab',
    parameters: ['dryRun', 'fieldManager', 'fieldValidation'],
    responses: { '200': 'com.example.stable.v1.CronTab', '201': 'com.example.stable.v1.CronTab' },
  },
  {
    path: `${crontabs}/{name}/status`,
    method: 'patch',
    id: 'patchStableExampleComV1NamespacedCronTabStatus',
    action: 'patch',
    description: 'partially update status of the specified CronTab',
    parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'],
    responses: { '200': 'com.example.stable.v1.CronTab' },
  },
  { path: `${crontabs}/{name}/scale`, method: 'get', id: 'readStableExampleComV1NamespacedCronTabScale', action: 'get', description: 'read scale of the specified CronTab', parameters: ['resourceVersion'], responses: { '200': 'io.k8s.api.autoscaling.v1.Scale' } },
  {
    path: `${crontabs}/{name}/scale`,
    method: 'put',
    id: 'replaceStableExampleComV1NamespacedCronTabScale',
    action: 'put',
    description: 'replace scale of the specified CronTab',
    parameters: ['dryRun', 'fieldManager', 'fieldValidation'],
    responses: { '200': 'io.k8s.api.autoscaling.v1.Scale', '201': 'io.k8s.api.autoscaling.v1.Scale' },
  },
  {
    path: `${crontabs}/{name}/scale`,
    method: 'patch',
    id: 'patchStableExampleComV1NamespacedCronTabScale',
    action: 'patch',
    description: 'partially update scale of the specified CronTab',
    parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'],
    responses: { '200': 'io.k8s.api.autoscaling.v1.Scale' },
  },
  { path: instancesPath, method: 'get', id: 'listThingsExampleOrgV1Instance', action: 'list', description: 'list objects of kind Instance', parameters: LIST_OPTIONS, responses: { '200': 'org.example.things.v1.InstanceList' } },
  {
    path: instancesPath,
    method: 'post',
    id: 'createThingsExampleOrgV1Instance',
    action: 'post',
    description: 'create an Instance',
    parameters: ['dryRun', 'fieldManager', 'fieldValidation'],
    responses: { '200': 'org.example.things.v1.Instance', '201': 'org.example.things.v1.Instance', '202': 'org.example.things.v1.Instance' },
  },
  {
    path: `${instancesPath}/{name}`,
    method: 'delete',
    id: 'deleteThingsExampleOrgV1Instance',
    action: 'delete',
    description: 'delete an Instance',
    parameters: ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'],
    responses: { '200': 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', '202': 'io.k8s.apimachinery.pkg.apis.meta.v1.Status' },
  },
];

const refName = (schema: Json | undefined): string | undefined => (schema?.$ref as string | undefined)?.replace(/^#\/(definitions|components\/schemas)\//, '');

for (const c of operationCases) {
  test(`${c.method} ${c.path}: ${c.id}`, () => {
    const v3 = c.path.includes('stable.example.com') ? cronV3 : instanceV3;
    for (const [dialect, document] of [['v2', documents.v2], ['v3', v3]] as const) {
      const operation = document.paths[c.path]?.[c.method];
      assert.ok(operation, `${dialect}: no ${c.method} ${c.path}`);
      assert.equal(operation.operationId, c.id);
      assert.equal(operation['x-kubernetes-action'], c.action);
      assert.equal(operation.description, c.description);
      assert.deepEqual(operation.tags, [c.path.includes('stable') ? 'stableExampleCom_v1' : 'thingsExampleOrg_v1']);
      const gvk = c.path.includes('stable') ? { group: 'stable.example.com', kind: 'CronTab', version: 'v1' } : { group: 'things.example.org', kind: 'Instance', version: 'v1' };
      assert.deepEqual(operation['x-kubernetes-group-version-kind'], gvk);
      const own = ((operation.parameters ?? []) as Json[]).filter((parameter) => parameter.in !== 'body').map((parameter) => parameter.name);
      assert.deepEqual(own, c.parameters, `${dialect} parameters`);
      const responses: Record<string, string | undefined> = {};
      for (const [code, response] of Object.entries(operation.responses as Record<string, Json>)) {
        if (code === '401') continue;
        responses[code] = dialect === 'v2' ? refName(response.schema) : refName(response.content['application/json'].schema);
      }
      assert.deepEqual(responses, c.responses);
      assert.deepEqual(operation.responses['401'], { description: 'Unauthorized' });
      const produces = dialect === 'v2' ? operation.produces : Object.keys(operation.responses['200'].content);
      assert.deepEqual(produces, ['application/json', 'application/yaml']);
    }
  });
}

test('bodies: the object for create and replace, Patch for patch (no strategic merge), optional DeleteOptions for delete, none for deletecollection', () => {
  const body = (path: string, method: string): Json | undefined => (documents.v2.paths[path][method].parameters as Json[]).find((p) => p.in === 'body');
  assert.deepEqual(body(crontabs, 'post'), { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/com.example.stable.v1.CronTab' } });
  assert.deepEqual(body(`${crontabs}/{name}`, 'delete'), { name: 'body', in: 'body', schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions' } });
  assert.equal(body(crontabs, 'delete'), undefined);
  assert.deepEqual(body(`${crontabs}/{name}/scale`, 'put')?.schema, { $ref: '#/definitions/io.k8s.api.autoscaling.v1.Scale' });
  const patch = documents.v2.paths[`${crontabs}/{name}`].patch;
  assert.deepEqual(patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  assert.deepEqual(documents.v2.paths[crontabs].post.consumes, ['application/json', 'application/yaml']);
  const v3Patch = cronV3.paths[`${crontabs}/{name}`].patch;
  assert.deepEqual(Object.keys(v3Patch.requestBody.content), ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  assert.equal(cronV3.paths[crontabs].delete.requestBody, undefined);
});

test('path parameters: those every operation of a path shares, sorted by name', () => {
  const shared = (path: string): string[] => (documents.v2.paths[path].parameters as Json[]).map((p) => `${p.in}:${p.name}`);
  assert.deepEqual(shared('/apis/stable.example.com/v1/crontabs'), [...LIST_OPTIONS.slice(0, 5).map((n) => `query:${n}`), 'query:pretty', ...LIST_OPTIONS.slice(5).map((n) => `query:${n}`)]);
  assert.deepEqual(shared(crontabs), ['path:namespace', 'query:pretty']);
  assert.deepEqual(shared(`${crontabs}/{name}`), ['path:name', 'path:namespace', 'query:pretty']);
  assert.deepEqual(shared(`${crontabs}/{name}/scale`), ['path:name', 'path:namespace', 'query:pretty']);
  assert.deepEqual(shared(`${instancesPath}/{name}`), ['path:name', 'query:pretty']);
  const name = (documents.v2.paths[`${crontabs}/{name}`].parameters as Json[])[0];
  assert.deepEqual(name, { name: 'name', in: 'path', description: 'name of the CronTab', type: 'string', required: true });
});

test('only the verbs a definition serves are published; no status or scale without the subresource', () => {
  assert.deepEqual(Object.keys(documents.v2.paths[instancesPath]).filter((key) => METHODS.includes(key)), ['get', 'post']);
  assert.deepEqual(Object.keys(documents.v2.paths[`${instancesPath}/{name}`]).filter((key) => METHODS.includes(key)), ['get', 'delete']);
  assert.equal(documents.v2.paths[`${instancesPath}/{name}/status`], undefined);
  const paths = Object.keys(instanceV3.paths);
  assert.deepEqual(paths, [instancesPath, `${instancesPath}/{name}`]);
});

test('Scale: autoscaling/v1 under upstream\u2019s name, with its GVK and ObjectMeta', () => {
  const scale = cronV3.components.schemas['io.k8s.api.autoscaling.v1.Scale'];
  assert.deepEqual(scale['x-kubernetes-group-version-kind'], [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }]);
  assert.deepEqual(scale.properties.metadata, { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
  assert.deepEqual(scale.properties.spec, { $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.ScaleSpec' });
  assert.deepEqual(cronV3.components.schemas['io.k8s.api.autoscaling.v1.ScaleStatus'].required, ['replicas']);
});

test('every $ref resolves and operation IDs stay unique with custom resources in', () => {
  for (const [document, prefix, schemas] of [
    [documents.v2, '#/definitions/', documents.v2.definitions],
    [cronV3, '#/components/schemas/', cronV3.components.schemas],
    [instanceV3, '#/components/schemas/', instanceV3.components.schemas],
  ] as [Json, string, Json][]) {
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) {
          if (key === '$ref') assert.ok(schemas[(child as string).slice(prefix.length)], `${String(child)} does not resolve`);
          else walk(child);
        }
      }
    };
    walk(document);
    const ids = Object.values(document.paths as Record<string, Json>).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m].operationId as string));
    assert.equal(new Set(ids).size, ids.length);
  }
});

test('the Protobuf form of /openapi/v2 carries custom resources too', () => {
  const encoded = swaggerToProtobuf(documents.v2);
  for (const text of ['com.example.stable.v1.CronTab', 'x-kubernetes-int-or-string', 'x-kubernetes-validations', 'listStableExampleComV1CronTabForAllNamespaces']) {
    assert.ok(encoded.includes(Buffer.from(text)), text);
  }
});
