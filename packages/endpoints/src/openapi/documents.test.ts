// The OpenAPI documents of the built-in kinds: every served kind with its GVK in both documents,
// upstream's names and operation IDs, section 4's parameters and responses, references that
// resolve, and a walk of every kind's validation schema beside its published schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions } from '@plat/api';
import { resolveResource, type JSONSchema, type ResolvedResource } from '@plat/registry';
import { buildOpenAPIDocuments, type OpenAPIDocuments } from './documents.js';
import { kindDefinitionName, validOperationId } from './names.js';
import type { Dialect } from './schema.js';

const resolveAll = (domain: string): ResolvedResource[] => builtinDefinitions.map((definition) => resolveResource(definition, domain));
type Json = Record<string, any>;
/** The documents, read as plain JSON. */
const build = (domain: string): { v2: Json; v3: Map<string, Json> } =>
  buildOpenAPIDocuments(resolveAll(domain), { domain, version: 'v1.28.0' }) as OpenAPIDocuments & { v2: Json; v3: Map<string, Json> };

const k8s = build('k8s.io');
const plat = build('plat.io');

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** Every operation of a document, with its path and method. */
function* operations(document: Json): Generator<{ path: string; method: string; operation: Json; item: Json }> {
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of METHODS) if (item[method]) yield { path, method, operation: item[method], item };
  }
}

const schemasOf = (document: Json, dialect: Dialect): Record<string, Json> => (dialect === 'v2' ? document.definitions : document.components.schemas);
const v3Key = (resolved: ResolvedResource): string => (resolved.group ? `apis/${resolved.group}/${resolved.version}` : `api/${resolved.version}`);

for (const [domain, documents] of [['k8s.io', k8s], ['plat.io', plat]] as const) {
  for (const resolved of resolveAll(domain)) {
    const gvk = { group: resolved.group, kind: resolved.kind, version: resolved.version };
    test(`${domain}: ${resolved.kind} appears with its GVK in /openapi/v2 and in the v3 document of ${resolved.apiVersion}`, () => {
      const name = kindDefinitionName(resolved.group, resolved.version, resolved.kind, domain);
      const listName = kindDefinitionName(resolved.group, resolved.version, resolved.listKind, domain);
      const v3 = documents.v3.get(v3Key(resolved));
      assert.ok(v3, `no v3 document for ${resolved.apiVersion}`);
      for (const [dialect, document] of [['v2', documents.v2], ['v3', v3]] as const) {
        const schemas = schemasOf(document, dialect);
        assert.deepEqual(schemas[name]?.['x-kubernetes-group-version-kind'], [gvk], `${dialect} ${name}`);
        assert.deepEqual(schemas[listName]?.['x-kubernetes-group-version-kind'], [{ ...gvk, kind: resolved.listKind }], `${dialect} ${listName}`);
        // A kind's operations by group and version too: Event is served by two groups,
        // ValidatingAdmissionPolicy by two versions of one.
        const own = [...operations(document)].filter(({ operation }) => {
          const of = operation['x-kubernetes-group-version-kind'];
          return of?.kind === resolved.kind && of.group === resolved.group && of.version === resolved.version;
        });
        assert.ok(own.length > 0, `${dialect}: no operation of ${resolved.kind}`);
        for (const { path, method, operation } of own) {
          assert.deepEqual(operation['x-kubernetes-group-version-kind'], gvk, `${dialect} ${method} ${path}`);
        }
      }
    });
  }

  test(`${domain}: the v3 index has one document per served group version, and only those`, () => {
    const expected = new Set(resolveAll(domain).map(v3Key));
    assert.deepEqual([...documents.v3.keys()].sort(), [...expected].sort());
  });

  for (const [label, document, dialect] of [['v2', documents.v2, 'v2'], ...[...documents.v3].map(([key, doc]) => [`v3 ${key}`, doc, 'v3'])] as [string, Json, Dialect][]) {
    test(`${domain} ${label}: every $ref resolves and operation IDs are unique`, () => {
      const schemas = schemasOf(document, dialect);
      const prefix = dialect === 'v2' ? '#/definitions/' : '#/components/schemas/';
      const walk = (value: unknown, at: string): void => {
        if (Array.isArray(value)) value.forEach((entry, i) => walk(entry, `${at}[${i}]`));
        else if (value && typeof value === 'object') {
          for (const [key, child] of Object.entries(value)) {
            if (key === '$ref') {
              assert.ok(typeof child === 'string' && child.startsWith(prefix), `${at}: ${String(child)}`);
              assert.ok(schemas[child.slice(prefix.length)], `${at}: ${child} does not resolve`);
            } else walk(child, `${at}.${key}`);
          }
        }
      };
      walk(document, '#');
      const ids = [...operations(document)].map(({ operation }) => operation.operationId as string);
      assert.equal(new Set(ids).size, ids.length, `duplicate operation IDs: ${ids.join(', ')}`);
    });
  }
}

test('definition names are upstream\u2019s, under either domain', () => {
  const names = Object.keys(k8s.v2.definitions);
  for (const name of [
    'io.k8s.api.core.v1.ServiceAccount',
    'io.k8s.api.core.v1.Namespace',
    'io.k8s.api.rbac.v1.Role',
    'io.k8s.api.rbac.v1.ClusterRoleBindingList',
    'io.k8s.api.networking.v1alpha1.IPAddress',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
    'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
    'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
  ]) {
    assert.ok(names.includes(name), name);
  }
  assert.ok(Object.keys(plat.v2.definitions).includes('io.plat.api.rbac.v1.Role'));
  assert.ok(Object.keys(plat.v2.definitions).includes('io.plat.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
  for (const key of ['api/v1', 'apis/networking.plat.io/v1alpha1', 'apis/rbac.authorization.plat.io/v1']) assert.ok(plat.v3.has(key), key);
});

test('every kind refers to one ObjectMeta', () => {
  for (const [name, schema] of Object.entries(k8s.v2.definitions as Record<string, Json>)) {
    if (!name.startsWith('io.k8s.api.') || name.endsWith('List')) continue;
    assert.deepEqual(schema.properties.metadata, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }, name);
  }
  const rbac = k8s.v3.get('apis/rbac.authorization.k8s.io/v1')!;
  assert.deepEqual(rbac.components.schemas['io.k8s.api.rbac.v1.Role'].properties.metadata, {
    $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
  });
});

test('validOperationId: upstream\u2019s rules', () => {
  assert.equal(validOperationId('rbac.authorization', true), 'RbacAuthorization');
  assert.equal(validOperationId('rbac.authorization', false), 'rbacAuthorization');
  assert.equal(validOperationId('v1alpha1', true), 'V1alpha1');
  assert.equal(validOperationId('1abc-def_g', false), 'AbcDef_g');
});

/** Operation IDs, methods and actions by path, as upstream names them. */
const operationCases: { path: string; method: string; id: string; action: string }[] = [
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}', method: 'get', id: 'readRbacAuthorizationV1NamespacedRole', action: 'get' },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}', method: 'put', id: 'replaceRbacAuthorizationV1NamespacedRole', action: 'put' },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}', method: 'patch', id: 'patchRbacAuthorizationV1NamespacedRole', action: 'patch' },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}', method: 'delete', id: 'deleteRbacAuthorizationV1NamespacedRole', action: 'delete' },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles', method: 'get', id: 'listRbacAuthorizationV1NamespacedRole', action: 'list' },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles', method: 'post', id: 'createRbacAuthorizationV1NamespacedRole', action: 'post' },
  { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles', method: 'delete', id: 'deleteRbacAuthorizationV1CollectionNamespacedRole', action: 'deletecollection' },
  { path: '/apis/rbac.authorization.k8s.io/v1/roles', method: 'get', id: 'listRbacAuthorizationV1RoleForAllNamespaces', action: 'list' },
  { path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}', method: 'get', id: 'readRbacAuthorizationV1ClusterRole', action: 'get' },
  { path: '/api/v1/namespaces/{namespace}/serviceaccounts', method: 'get', id: 'listCoreV1NamespacedServiceAccount', action: 'list' },
  { path: '/api/v1/serviceaccounts', method: 'get', id: 'listCoreV1ServiceAccountForAllNamespaces', action: 'list' },
  { path: '/api/v1/namespaces/{name}', method: 'get', id: 'readCoreV1Namespace', action: 'get' },
  { path: '/api/v1/namespaces/{name}/status', method: 'get', id: 'readCoreV1NamespaceStatus', action: 'get' },
  { path: '/api/v1/namespaces/{name}/status', method: 'put', id: 'replaceCoreV1NamespaceStatus', action: 'put' },
  { path: '/api/v1/namespaces/{name}/status', method: 'patch', id: 'patchCoreV1NamespaceStatus', action: 'patch' },
  { path: '/api/v1/namespaces/{name}/finalize', method: 'put', id: 'replaceCoreV1NamespaceFinalize', action: 'put' },
  { path: '/apis/networking.k8s.io/v1alpha1/ipaddresses', method: 'post', id: 'createNetworkingV1alpha1IPAddress', action: 'post' },
];
for (const c of operationCases) {
  test(`operation ${c.method} ${c.path}: ${c.id}`, () => {
    for (const document of [k8s.v2, ...k8s.v3.values()]) {
      const operation = (document.paths as Json)[c.path]?.[c.method];
      if (!operation && document !== k8s.v2) continue;
      assert.equal(operation?.operationId, c.id);
      assert.equal(operation?.['x-kubernetes-action'], c.action);
    }
  });
}

test('Namespace has no deletecollection and finalize only PUT, as the definition and discovery say', () => {
  const paths = k8s.v2.paths as Json;
  assert.equal(paths['/api/v1/namespaces'].delete, undefined);
  assert.deepEqual(Object.keys(paths['/api/v1/namespaces/{name}/finalize']).filter((key) => key !== 'parameters'), ['put']);
});

/** The parameters of an operation, path level included, as "in:name" sorted. */
function parameterNames(item: Json, operation: Json): string[] {
  return [...(item.parameters ?? []), ...(operation.parameters ?? [])]
    .filter((parameter: Json) => parameter.in !== 'body')
    .map((parameter: Json) => `${parameter.in}:${parameter.name}`)
    .sort();
}

const q = (...names: string[]): string[] => names.map((name) => `query:${name}`);
const roles = '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles';
const parameterCases: { name: string; path: string; method: string; want: string[] }[] = [
  { name: 'get', path: `${roles}/{name}`, method: 'get', want: ['path:name', 'path:namespace', ...q('pretty')] },
  {
    name: 'list',
    path: roles,
    method: 'get',
    want: ['path:namespace', ...q('allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'pretty', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch')],
  },
  { name: 'create', path: roles, method: 'post', want: ['path:namespace', ...q('dryRun', 'fieldManager', 'fieldValidation', 'pretty')] },
  { name: 'update', path: `${roles}/{name}`, method: 'put', want: ['path:name', 'path:namespace', ...q('dryRun', 'fieldManager', 'fieldValidation', 'pretty')] },
  { name: 'patch', path: `${roles}/{name}`, method: 'patch', want: ['path:name', 'path:namespace', ...q('dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty')] },
  { name: 'delete', path: `${roles}/{name}`, method: 'delete', want: ['path:name', 'path:namespace', ...q('dryRun', 'gracePeriodSeconds', 'pretty', 'propagationPolicy')] },
  {
    name: 'deletecollection',
    path: roles,
    method: 'delete',
    want: [
      'path:namespace',
      ...q('continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'labelSelector', 'limit', 'pretty', 'propagationPolicy', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds'),
    ],
  },
  { name: 'a cluster-scoped get has no namespace', path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}', method: 'get', want: ['path:name', ...q('pretty')] },
];
for (const c of parameterCases) {
  test(`parameters of ${c.name} (resources section 4)`, () => {
    const v3 = k8s.v3.get('apis/rbac.authorization.k8s.io/v1')!;
    for (const document of [k8s.v2, v3]) {
      const item = (document.paths as Json)[c.path];
      assert.deepEqual(parameterNames(item, item[c.method]), c.want);
    }
    const pathParameters = ((k8s.v2.paths as Json)[c.path].parameters as Json[]).filter((parameter) => parameter.in === 'path');
    assert.ok(pathParameters.every((parameter) => parameter.required === true && parameter.type === 'string'));
  });
}

/** Responses by code: the definition each refers to ("" for none), from the v2 and the v3 forms. */
function responses(document: Json, path: string, method: string, dialect: Dialect): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [code, response] of Object.entries((document.paths as Json)[path][method].responses as Record<string, Json>)) {
    const schema = dialect === 'v2' ? response.schema : response.content?.['application/json']?.schema;
    out[code] = ((schema?.$ref as string | undefined) ?? '').split('/').pop()!;
  }
  return out;
}

const responseCases: { name: string; path: string; method: string; want: Record<string, string> }[] = [
  { name: 'get', path: `${roles}/{name}`, method: 'get', want: { '200': 'io.k8s.api.rbac.v1.Role', '401': '' } },
  { name: 'list', path: roles, method: 'get', want: { '200': 'io.k8s.api.rbac.v1.RoleList', '401': '' } },
  { name: 'create', path: roles, method: 'post', want: { '200': 'io.k8s.api.rbac.v1.Role', '201': 'io.k8s.api.rbac.v1.Role', '202': 'io.k8s.api.rbac.v1.Role', '401': '' } },
  { name: 'update', path: `${roles}/{name}`, method: 'put', want: { '200': 'io.k8s.api.rbac.v1.Role', '201': 'io.k8s.api.rbac.v1.Role', '401': '' } },
  { name: 'patch', path: `${roles}/{name}`, method: 'patch', want: { '200': 'io.k8s.api.rbac.v1.Role', '201': 'io.k8s.api.rbac.v1.Role', '401': '' } },
  {
    name: 'delete',
    path: `${roles}/{name}`,
    method: 'delete',
    want: { '200': 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', '202': 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', '401': '' },
  },
  { name: 'deletecollection', path: roles, method: 'delete', want: { '200': 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', '401': '' } },
  {
    name: 'a ServiceAccount delete returns the ServiceAccount',
    path: '/api/v1/namespaces/{namespace}/serviceaccounts/{name}',
    method: 'delete',
    want: { '200': 'io.k8s.api.core.v1.ServiceAccount', '202': 'io.k8s.api.core.v1.ServiceAccount', '401': '' },
  },
];
for (const c of responseCases) {
  test(`responses of ${c.name} (resources section 4)`, () => {
    const v3 = [...k8s.v3.values()].find((document) => (document.paths as Json)[c.path])!;
    assert.deepEqual(responses(k8s.v2, c.path, c.method, 'v2'), c.want);
    assert.deepEqual(responses(v3, c.path, c.method, 'v3'), c.want);
  });
}

test('bodies: the kind for create and update, Patch with the patch media types, optional DeleteOptions', () => {
  const paths = k8s.v2.paths as Json;
  const body = (operation: Json): Json => (operation.parameters as Json[]).find((parameter) => parameter.in === 'body')!;
  assert.deepEqual(body(paths[roles].post), { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.rbac.v1.Role' } });
  assert.deepEqual(body(paths[`${roles}/{name}`].patch).schema, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' });
  assert.deepEqual(paths[`${roles}/{name}`].patch.consumes, [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]);
  assert.equal(body(paths[`${roles}/{name}`].delete).required, undefined);
  assert.ok((paths[roles].get.produces as string[]).includes('application/json;stream=watch'));
  const v3 = k8s.v3.get('apis/rbac.authorization.k8s.io/v1')!.paths as Json;
  assert.deepEqual(Object.keys(v3[`${roles}/{name}`].patch.requestBody.content).sort(), [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
  ]);
  assert.equal(v3[roles].post.requestBody.required, true);
});

// The published schema and the validation schema agree: the same properties, types, formats,
// required fields, descriptions, defaults and x-kubernetes-* markers, everywhere, through $refs.
const COMPARED = new Set(['type', 'description', 'format', 'properties', 'required', 'items', 'additionalProperties', 'anyOf', 'enum', 'default']);

function resolve(schema: Json, schemas: Record<string, Json>): Json {
  const ref = schema.$ref as string | undefined;
  if (ref) return resolve(schemas[ref.split('/').pop()!]!, schemas);
  const allOf = schema.allOf as Json[] | undefined;
  if (allOf?.length === 1 && !schema.properties) return { ...resolve(allOf[0]!, schemas), ...(schema.description && { description: schema.description }) };
  return schema;
}

function agree(validation: JSONSchema, published: Json, schemas: Record<string, Json>, dialect: Dialect, at: string, root = false): string[] {
  const problems: string[] = [];
  const node = resolve(published, schemas);
  for (const keyword of Object.keys(validation)) {
    if (!COMPARED.has(keyword) && !keyword.startsWith('x-kubernetes-')) problems.push(`${at}: the walk does not compare ${keyword}`);
  }
  const markers = (schema: Json): string[] =>
    Object.keys(schema).filter((key) => key.startsWith('x-kubernetes-') && !(root && key === 'x-kubernetes-group-version-kind')).sort();
  if (JSON.stringify(markers(validation)) !== JSON.stringify(markers(node))) problems.push(`${at}: markers ${markers(validation)} vs ${markers(node)}`);
  for (const marker of markers(validation)) {
    if (JSON.stringify(validation[marker]) !== JSON.stringify(node[marker])) problems.push(`${at}: ${marker} differs`);
  }
  const intOrStringInV2 = dialect === 'v2' && validation['x-kubernetes-int-or-string'] === true;
  const quantityInV2 = dialect === 'v2' && validation.format === 'quantity';
  // A union of types is published as anyOf in v3 (and, for a quantity, as a string in v2).
  const union = Array.isArray(validation.type) && validation.type.length > 1 ? (validation.type as string[]) : undefined;
  if (union && dialect === 'v3' && JSON.stringify(node.anyOf) !== JSON.stringify(union.map((type) => ({ type })))) {
    problems.push(`${at}: type ${JSON.stringify(union)} vs anyOf ${JSON.stringify(node.anyOf)}`);
  }
  for (const keyword of ['type', 'description', 'format', 'enum', 'default'] as const) {
    if (keyword === 'type' && intOrStringInV2) continue;
    if (keyword === 'type' && quantityInV2 && node.type === 'string') continue;
    if (keyword === 'type' && union && dialect === 'v3' && node.type === undefined) continue;
    if (JSON.stringify(validation[keyword]) !== JSON.stringify(node[keyword])) problems.push(`${at}: ${keyword} ${JSON.stringify(validation[keyword])} vs ${JSON.stringify(node[keyword])}`);
  }
  const sorted = (list: unknown): string => JSON.stringify([...((list as string[] | undefined) ?? [])].sort());
  if (sorted(validation.required) !== sorted(node.required)) problems.push(`${at}: required ${sorted(validation.required)} vs ${sorted(node.required)}`);

  const properties = (validation.properties ?? {}) as Record<string, JSONSchema>;
  const publishedProperties = (node.properties ?? {}) as Record<string, Json>;
  if (sorted(Object.keys(properties)) !== sorted(Object.keys(publishedProperties))) {
    problems.push(`${at}: properties ${Object.keys(properties)} vs ${Object.keys(publishedProperties)}`);
  }
  for (const [name, child] of Object.entries(properties)) {
    if (publishedProperties[name]) problems.push(...agree(child, publishedProperties[name], schemas, dialect, `${at}.${name}`));
  }
  if (validation.items) {
    if (!node.items) problems.push(`${at}: items missing`);
    else problems.push(...agree(validation.items as JSONSchema, node.items, schemas, dialect, `${at}[]`));
  }
  const additional = validation.additionalProperties;
  if (additional && typeof additional === 'object') {
    if (!node.additionalProperties) problems.push(`${at}: additionalProperties missing`);
    else problems.push(...agree(additional as JSONSchema, node.additionalProperties, schemas, dialect, `${at}{}`));
  } else if (node.additionalProperties !== undefined) {
    problems.push(`${at}: additionalProperties published as ${JSON.stringify(node.additionalProperties)}`);
  }
  const branches = (validation.anyOf ?? []) as JSONSchema[];
  if (dialect === 'v3' && !union) {
    const published3 = (node.anyOf ?? []) as Json[];
    if (branches.length !== published3.length) problems.push(`${at}: anyOf has ${published3.length} branches, not ${branches.length}`);
    branches.forEach((branch, i) => published3[i] && problems.push(...agree(branch, published3[i]!, schemas, dialect, `${at}|${i}`)));
  } else if (branches.length && !intOrStringInV2) {
    problems.push(`${at}: anyOf cannot be published in Swagger 2.0`);
  }
  return problems;
}

for (const resolved of resolveAll('k8s.io')) {
  test(`${resolved.kind}: the published schemas and the validation schema agree`, () => {
    const name = kindDefinitionName(resolved.group, resolved.version, resolved.kind, 'k8s.io');
    for (const [dialect, document] of [['v2', k8s.v2], ['v3', k8s.v3.get(v3Key(resolved))!]] as const) {
      const schemas = schemasOf(document, dialect);
      assert.deepEqual(agree(resolved.definition.schema, schemas[name]!, schemas, dialect, `${dialect} ${resolved.kind}`, true), []);
    }
  });
}

test('the walk notices a disagreement', () => {
  const resolved = resolveAll('k8s.io').find((r) => r.kind === 'Role')!;
  const schemas = structuredClone(schemasOf(k8s.v2, 'v2'));
  const role = schemas['io.k8s.api.rbac.v1.Role']!;
  delete role.properties.rules.items.properties.verbs;
  role.properties.rules['x-kubernetes-list-type'] = 'set';
  schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']!.properties.generation.type = 'string';
  const problems = agree(resolved.definition.schema, role, schemas, 'v2', 'Role', true);
  assert.ok(problems.some((p) => p.startsWith('Role.rules[]: properties')), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('Role.rules: x-kubernetes-list-type differs')), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('Role.metadata.generation: type')), problems.join('\n'));
});

test('a quantity is a string in Swagger 2.0 (no unions there) and a string or a number in OpenAPI v3', () => {
  const limitRange = (k8s.v2.definitions as Json)['io.k8s.api.core.v1.LimitRange'];
  const max = limitRange.properties.spec.properties.limits.items.properties.max.additionalProperties;
  assert.deepEqual(max, { description: 'A quantity of the named resource.', type: 'string', format: 'quantity' });
  const v3 = k8s.v3.get('api/v1')!.components.schemas['io.k8s.api.core.v1.LimitRange'];
  assert.deepEqual(v3.properties.spec.properties.limits.items.properties.max.additionalProperties.anyOf, [{ type: 'string' }, { type: 'number' }]);
});

test('a kind whose metadata schema differs from ObjectMeta keeps it inline, so that it is still what is validated', () => {
  const role = builtinDefinitions.find((definition) => definition.kind === 'Role')!;
  const properties = role.schema.properties as Record<string, JSONSchema>;
  const odd = { ...role, kind: 'OddRole', resource: 'oddroles', schema: { ...role.schema, properties: { ...properties, metadata: { ...properties.metadata, description: 'Different.' } } } };
  const documents = buildOpenAPIDocuments([resolveResource(role, 'k8s.io'), resolveResource(odd, 'k8s.io')], { domain: 'k8s.io', version: 'v1' });
  const definitions = documents.v2.definitions as Record<string, Json>;
  assert.deepEqual(definitions['io.k8s.api.rbac.v1.Role']!.properties.metadata, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
  assert.equal(definitions['io.k8s.api.rbac.v1.OddRole']!.properties.metadata.description, 'Different.');
  assert.equal(definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']!.description, properties.metadata!.description);
});
