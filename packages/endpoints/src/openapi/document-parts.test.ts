// The documents put together from parts are the documents built whole, byte for byte, as the
// resources change: custom resources added, replaced and removed, one in a built-in group, one
// with the scale subresource; and a part is built once, not at every change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, customResourceDefinitions, type CustomResourceDefinition } from '@plat/api';
import { resolveResource, type ResolvedResource } from '@plat/registry';
import { buildOpenAPIDocuments } from './documents.js';
import { DocumentParts } from './document-parts.js';
import { swaggerToProtobuf } from './protobuf-v2.js';

const domain = 'k8s.io';
const options = { domain, version: 'v1.28.0' };

function crd(group: string, plural: string, kind: string, extra: Partial<CustomResourceDefinition['spec']['versions'][number]> = {}): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 }, replicas: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' } } } } } },
          ...extra,
        },
      ],
    },
  };
}

const resolved = (definition: CustomResourceDefinition): ResolvedResource[] =>
  customResourceDefinitions(definition).map((served) => resolveResource(served, domain));

const builtIn = builtinDefinitions.map((definition) => resolveResource(definition, domain));
const widgets = resolved(crd('stable.example.com', 'widgets', 'Widget', { subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } }));
const gadgets = resolved(crd('stable.example.com', 'gadgets', 'Gadget'));
// A custom resource in a built-in group, beside its kinds.
const inBuiltInGroup = resolved(crd('rbac.authorization.k8s.io', 'rolemirrors', 'RoleMirror'));
const widgetsChanged = resolved(
  crd('stable.example.com', 'widgets', 'Widget', { schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }),
);

// The same kind under another resource (the names controller refuses it, the documents do not
// depend on that): the later one's schema is published under the kind's name, as in a whole build.
const widgetCopies = resolved(
  crd('stable.example.com', 'widgetcopies', 'Widget', { schema: { openAPIV3Schema: { type: 'object', properties: { copy: { type: 'string' } } } } }),
);

async function assertSame(parts: DocumentParts, resources: ResolvedResource[], what: string): Promise<void> {
  const whole = buildOpenAPIDocuments(resources, options);
  const swagger = await parts.swagger(resources);
  assert.equal(swagger.json.toString(), JSON.stringify(whole.v2), `${what}: /openapi/v2`);
  assert.ok((await swagger.protobuf()).equals(swaggerToProtobuf(whole.v2)), `${what}: /openapi/v2 as Protobuf`);
  const v3 = await parts.groupVersionDocuments(resources);
  assert.deepEqual([...v3.keys()].sort(), [...whole.v3.keys()].sort(), `${what}: the v3 group versions`);
  for (const [key, document] of whole.v3) assert.equal(v3.get(key)?.toString(), JSON.stringify(document), `${what}: /openapi/v3/${key}`);
}

test('documents from parts are the documents built whole, through changes', async () => {
  const parts = new DocumentParts(options);
  await assertSame(parts, builtIn, 'built-in kinds only');
  // The rbac group's versions in the catalog's order: the custom resource among the built-in kinds.
  const rbacAt = builtIn.findIndex((resource) => resource.group === 'rbac.authorization.k8s.io');
  const withCustom = [...builtIn.slice(0, rbacAt + 1), ...inBuiltInGroup, ...builtIn.slice(rbacAt + 1), ...widgets, ...gadgets];
  await assertSame(parts, withCustom, 'custom resources added');
  await assertSame(parts, withCustom.map((resource) => (resource === widgets[0] ? widgetsChanged[0]! : resource)), 'a definition changed');
  await assertSame(parts, withCustom.filter((resource) => !gadgets.includes(resource)), 'a definition removed');
  await assertSame(parts, [...withCustom, ...widgetCopies], 'a kind published by two resources');
  await assertSame(parts, builtIn, 'all removed');
});

test('a part is built once: the same resources again give the same v3 bytes; another group version changes only DeleteOptions', async () => {
  const parts = new DocumentParts(options);
  const first = await parts.groupVersionDocuments([...builtIn, ...widgets]);
  const again = await parts.groupVersionDocuments([...builtIn, ...widgets]);
  // The same Buffer: its publication (hash, time) is kept.
  for (const [key, body] of first) assert.equal(again.get(key), body, key);
  // Another group version: DeleteOptions now names it, in every document that publishes it.
  const more = await parts.groupVersionDocuments([...builtIn, ...widgets, ...resolved(crd('other.example.com', 'things', 'Thing'))]);
  assert.notEqual(more.get('apis/stable.example.com/v1'), first.get('apis/stable.example.com/v1'));
  assert.match(more.get('apis/stable.example.com/v1')!.toString(), /"group":"other.example.com","kind":"DeleteOptions"/);
});
