// A custom resource's versions through the one generic store, as a served CRD makes them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { objectFromInput, resolveResource, ResourceStore, type KubeObject, type ResourceDefinition } from '@plat/registry';
import { createStorage } from '@plat/storage';
import { customResourceDefinitions, defaultDeprecationWarning } from './custom-resource.js';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from './types.js';

type CronTab = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        image: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        hosts: { type: 'array', items: { type: 'string' } },
        note: { type: 'string', nullable: true },
      },
      required: ['cronSpec'],
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
  },
};

const version = (name: string, extra: Partial<CustomResourceDefinitionVersion> = {}): CustomResourceDefinitionVersion => ({
  name,
  served: true,
  storage: false,
  schema: { openAPIV3Schema: schema },
  subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
  additionalPrinterColumns: [
    { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
  ],
  ...extra,
});

const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'] },
    scope: 'Namespaced',
    versions: [version('v1', { storage: true }), version('v1beta1', { deprecated: true }), version('v0', { served: false })],
  },
  status: { acceptedNames: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'] } },
};

function stores(): Record<string, ResourceStore<CronTab>> {
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const out: Record<string, ResourceStore<CronTab>> = {};
  for (const definition of customResourceDefinitions(crd)) {
    out[definition.version] = new ResourceStore(resolveResource(definition as unknown as ResourceDefinition<CronTab>, 'k8s.io'), { storage, context: { domain: 'k8s.io' } });
  }
  return out;
}

const cronTab = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): CronTab => ({
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name },
  spec,
  ...extra,
});

const invalid = (pattern: RegExp) => (error: unknown) => isStatusError(error) && error.code === 422 && pattern.test(error.status.message ?? "");

describe('custom resources from a CRD', () => {
  it('serves each served version, with the accepted names, and not the unserved one', () => {
    const definitions = customResourceDefinitions(crd);
    assert.deepEqual(definitions.map((d) => d.version), ['v1', 'v1beta1']);
    const [v1] = definitions;
    assert.equal(v1!.kind, 'CronTab');
    assert.equal(v1!.listKind, 'CronTabList');
    const renamed = customResourceDefinitions({ ...crd, status: { acceptedNames: { ...crd.status!.acceptedNames!, listKind: 'CronTabCollection' } } });
    assert.equal(resolveResource(renamed[0]!, 'k8s.io').listKind, 'CronTabCollection');
    assert.equal(v1!.resource, 'crontabs');
    assert.deepEqual(v1!.shortNames, ['ct']);
    assert.equal(v1!.namespaced, true);
    assert.equal(v1!.unstructured?.storageVersion, 'v1');
    assert.deepEqual(Object.keys(v1!.subresources ?? {}), ['status', 'scale']);
  });

  it('defaults on create, drops status (status subresource), starts the generation at 1', async () => {
    const { v1 } = stores();
    const created = await v1!.create('ns', cronTab('a', { cronSpec: '* * * * */5' }, { status: { replicas: 3 } }));
    assert.deepEqual(created.spec, { cronSpec: '* * * * */5', replicas: 1 });
    assert.equal(created.status, undefined);
    assert.equal(created.metadata.generation, 1);
  });

  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['a pattern', { cronSpec: 'never' }, /spec\.cronSpec: Invalid value: "never": spec\.cronSpec in body should match/],
    ['a maximum', { cronSpec: '* * * * *', replicas: 11 }, /spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10/],
    ['a type', { cronSpec: '* * * * *', replicas: 'two' }, /spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/],
    ['a required field', { image: 'x' }, /spec\.cronSpec: Required value/],
    ['a set with a duplicate', { cronSpec: '* * * * *', tags: ['a', 'a'] }, /spec\.tags\[1\]: Duplicate value: "a"/],
  ];
  for (const [name, spec, message] of refused) {
    it(`refuses ${name} with a 422`, async () => {
      const { v1 } = stores();
      await assert.rejects(v1!.create('ns', cronTab('a', spec)), invalid(message));
    });
  }

  it('an update keeps the status and bumps the generation for a spec change; /status changes only the status', async () => {
    const { v1 } = stores();
    const created = await v1!.create('ns', cronTab('a', { cronSpec: '* * * * *' }));
    const updated = await v1!.update('ns', 'a', { ...created, spec: { cronSpec: '*/2 * * * *' }, status: { replicas: 9 } });
    assert.equal(updated.object.status, undefined);
    assert.equal(updated.object.metadata.generation, 2);
    assert.deepEqual(updated.object.spec, { cronSpec: '*/2 * * * *', replicas: 1 });
    const status = await v1!.update('ns', 'a', { ...updated.object, spec: { cronSpec: '1 * * * *' }, status: { replicas: 2 } }, { subresource: 'status' });
    assert.deepEqual(status.object.status, { replicas: 2 });
    assert.equal((status.object.spec as { cronSpec: string }).cronSpec, '*/2 * * * *');
    assert.equal(status.object.metadata.generation, 2);
    await assert.rejects(v1!.update('ns', 'a', { ...status.object, status: { replicas: 'x' } }, { subresource: 'status' }), invalid(/replicas: Invalid value: "string": replicas in body must be of type integer/));
  });

  it('/scale is the Scale of its paths; a write through it is judged by the custom resource\u2019s own rules', async () => {
    const { v1, v1beta1 } = stores();
    await v1!.create('ns', cronTab('a', { cronSpec: '* * * * *' }));
    await v1!.updateSubresource('ns', 'a', 'status', { ...(await v1!.get('ns', 'a')), status: { replicas: 2, selector: 'app=a' } });
    const scale = (await v1beta1!.getSubresource('ns', 'a', 'scale')) as KubeObject & { spec: unknown; status: unknown };
    assert.deepEqual([scale.apiVersion, scale.kind, scale.spec, scale.status], ['autoscaling/v1', 'Scale', { replicas: 1 }, { replicas: 2, selector: 'app=a' }]);
    const { object } = await v1beta1!.patchSubresource('ns', 'a', 'scale', { type: 'merge', patch: { spec: { replicas: 3 } } });
    assert.deepEqual(object.spec, { replicas: 3 });
    const stored = await v1!.get('ns', 'a');
    assert.deepEqual([stored.spec, stored.status, stored.metadata.generation], [{ cronSpec: '* * * * *', replicas: 3 }, { replicas: 2, selector: 'app=a' }, 2]);
    // The schema's maximum is the custom resource's; a negative count is refused at the scale path.
    await assert.rejects(v1!.patchSubresource('ns', 'a', 'scale', { type: 'merge', patch: { spec: { replicas: 11 } } }), invalid(/spec\.replicas in body should be less than or equal to 10/));
    await assert.rejects(
      v1!.updateSubresource('ns', 'a', 'scale', { metadata: { name: 'a' }, spec: { replicas: -1 } }),
      invalid(/^CronTab.stable.example.com "a" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer$/),
    );
    assert.equal((await v1!.get('ns', 'a')).spec?.replicas, 3);
  });

  it('prunes unknown fields (reported by fieldValidation), keeps them under preserve-unknown-fields, keeps an allowed null', () => {
    const [v1] = customResourceDefinitions(crd);
    const resolved = resolveResource(v1!, 'k8s.io');
    const value = cronTab('a', { cronSpec: '* * * * *', shape: 'round', extra: { anything: { deep: 1 } }, note: null }, { top: 1 });
    assert.throws(() => objectFromInput(resolved, { value: structuredClone(value), duplicates: [] }, 'Strict'), /strict decoding error: unknown field "spec\.shape", unknown field "top"/);
    const { object, warnings } = objectFromInput(resolved, { value, duplicates: [] }, 'Warn');
    assert.deepEqual(warnings, ['unknown field "spec.shape"', 'unknown field "top"']);
    // Pruned while decoding; the defaults are the store's (strategy.default).
    assert.deepEqual(object.spec, { cronSpec: '* * * * *', extra: { anything: { deep: 1 } }, note: null });
  });

  it('server-side apply merges a map list by its keys, and replaces an unmarked list whole', async () => {
    const { v1 } = stores();
    const applied = (manager: string, spec: Record<string, unknown>) =>
      v1!.patch('ns', 'a', { type: 'apply', manager, patch: { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'a' }, spec } });
    await applied('alice', { cronSpec: '* * * * *', ports: [{ name: 'http', port: 80 }], hosts: ['a'] });
    const { object } = await applied('bob', { ports: [{ name: 'https', port: 443 }] });
    assert.deepEqual(object.spec?.ports, [{ name: 'http', port: 80 }, { name: 'https', port: 443 }]);
    await assert.rejects(applied('bob', { hosts: ['b'] }), (error: unknown) => isStatusError(error) && error.code === 409 && /conflict with "alice"/.test(error.status.message ?? '') && /\.spec\.hosts/.test(error.status.message ?? ''));
  });

  it('is stored in the storage version and read in each served version', async () => {
    const { v1, v1beta1 } = stores();
    await v1beta1!.create('ns', { ...cronTab('a', { cronSpec: '* * * * *' }), apiVersion: 'stable.example.com/v1beta1' });
    assert.equal((await v1!.storage.get<CronTab>(v1!.resource.key('ns', 'a'))).apiVersion, 'stable.example.com/v1');
    assert.equal((await v1!.get('ns', 'a')).apiVersion, 'stable.example.com/v1');
    assert.equal((await v1beta1!.get('ns', 'a')).apiVersion, 'stable.example.com/v1beta1');
  });

  it('prints its columns, and Age when a version names none', () => {
    const [v1] = customResourceDefinitions(crd);
    const columns = v1!.tableColumns!;
    assert.deepEqual(columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Spec', 'string'], ['Replicas', 'integer']]);
    const object = cronTab('a', { cronSpec: '* * * * *', replicas: 2 });
    assert.deepEqual(columns.map((c) => c.value(object, { domain: 'plat.io' })), ['a', '* * * * *', 2]);
    const bare = customResourceDefinitions({ ...crd, spec: { ...crd.spec, versions: [version('v1', { storage: true, additionalPrinterColumns: [] })] } });
    assert.deepEqual(bare[0]!.tableColumns!.map((c) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
  });

  it('deprecated versions warn with upstream\'s text', () => {
    const definitions = customResourceDefinitions(crd);
    assert.equal(definitions[1]!.deprecated?.warning, 'stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab');
    const spec = { ...crd.spec, versions: [version('v1', { deprecated: true }), version('v2alpha1'), version('v1beta1')] };
    assert.equal(defaultDeprecationWarning('v1', spec, 'CronTab'), 'stable.example.com/v1 CronTab is deprecated');
    assert.equal(defaultDeprecationWarning('v1alpha1', spec, 'CronTab'), 'stable.example.com/v1alpha1 CronTab is deprecated; use stable.example.com/v1beta1 CronTab');
    const custom = customResourceDefinitions({ ...crd, spec: { ...crd.spec, versions: [version('v1', { storage: true, deprecated: true, deprecationWarning: 'go away' })] } });
    assert.equal(custom[0]!.deprecated?.warning, 'go away');
  });
});
