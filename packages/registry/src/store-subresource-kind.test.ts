// A subresource served as another kind (a Scale for a scale subresource) through the one store:
// GET shows that kind's object, PUT and every PATCH type write it into the parent through the
// parent's own update rules (conflicts, dry run, admission, generation, field ownership).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { invalid, isStatusError, newInvalid, newPath, type StatusError } from '@plat/apimachinery';
import { decodeFieldsV1, type ManagedFieldsEntry } from '@plat/merge';
import { createStorage, type Storage } from '@plat/storage';
import type { KubeObject, ResourceDefinition, SubresourceKind, UnstructuredRules } from './definition.js';
import { objectFromInput } from './object-input.js';
import type { AdmissionAttributes, PatchRequest } from './requests.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';

interface Widget extends KubeObject {
  spec?: { replicas?: number; color?: string };
  status?: { replicas?: number };
}

interface Scale extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas?: number };
}

const closed = (properties: Record<string, unknown>) => ({ type: 'object', properties, additionalProperties: false });

// A stand-in for autoscaling/v1 Scale: the generic store knows no kind by name.
const scale: SubresourceKind<Widget> = {
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  schema: closed({
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    spec: closed({ replicas: { type: 'integer', format: 'int32' } }),
    status: closed({ replicas: { type: 'integer', format: 'int32' } }),
  }),
  fromParent: (widget) => {
    const { name, namespace, uid, resourceVersion, creationTimestamp } = widget.metadata;
    return {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
      spec: { replicas: widget.spec?.replicas ?? 0 },
      status: { replicas: widget.status?.replicas ?? 0 },
    };
  },
  toParent: (object, widget, context) => {
    const replicas = (object as Scale).spec?.replicas ?? 0;
    if (replicas < 0) throw newInvalid(context.groupKind, context.name, [invalid(newPath('spec', 'replicas'), replicas, 'must be greater than or equal to 0')]);
    widget.spec = { ...widget.spec, replicas };
    return widget;
  },
  fields: [{ field: ['spec', 'replicas'], parentField: ['spec', 'replicas'] }],
};

const widgets: ResourceDefinition<Widget> = {
  group: 'things.{domain}',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singularName: 'widget',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  schema: closed({
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    spec: closed({ replicas: { type: 'integer' }, color: { type: 'string' } }),
    status: closed({ replicas: { type: 'integer' } }),
  }),
  strategy: {
    tracksGeneration: true,
    // As a custom resource with a status subresource: the main resource does not write status.
    prepareForUpdate: (widget, old) => {
      if (old.status) widget.status = old.status;
      else delete widget.status;
    },
    validate: () => [],
    validateUpdate: (widget) => (widget.spec?.color === 'invalid' ? [invalid(newPath('spec', 'color'), 'invalid', 'is not a color')] : []),
  },
  allowCreateOnUpdate: false,
  subresources: { scale: { servedAs: scale } },
};

const apiVersion = 'things.example.com/v1';

async function setUp(definition = widgets): Promise<{ store: ResourceStore<Widget>; storage: Storage; admitted: AdmissionAttributes[] }> {
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const admitted: AdmissionAttributes[] = [];
  const store = new ResourceStore(resolveResource(definition, 'example.com'), {
    storage,
    context: { domain: 'example.com' },
    admission: { mutate: async (attributes) => void admitted.push(attributes), validate: async () => {} },
    now: () => new Date('2026-03-04T05:06:07Z'),
  });
  await store.create('ns', { metadata: { name: 'w', labels: { app: 'w' } }, spec: { replicas: 1, color: 'blue' } }, { manager: 'creator' });
  // The status is the status subresource's to write; here, straight into storage.
  const key = store.resource.key('ns', 'w');
  await storage.guaranteedUpdate<Widget>(key, async (current) => ({ ...current!, status: { replicas: 1 } }));
  admitted.length = 0;
  return { store, storage, admitted };
}

/** Each managedFields entry's fields, sorted, by manager/operation/apiVersion/subresource. */
const owners = (widget: Widget): Record<string, string> =>
  Object.fromEntries(
    ((widget.metadata.managedFields ?? []) as ManagedFieldsEntry[]).map((entry) => [
      `${entry.manager}/${entry.operation}/${entry.apiVersion}/${entry.subresource ?? ''}`,
      decodeFieldsV1(entry.fieldsV1).toString().split('\n').sort().join(', '),
    ]),
  );

const isStatus = (code: number, message?: RegExp) => (error: unknown) =>
  isStatusError(error) && error.code === code && (!message || message.test(error.message)) ? true : assert.fail(`expected ${code} ${message ?? ''}, got ${(error as StatusError).message}`);

describe('store: a subresource served as another kind', () => {
  it('GET answers that kind, made from the parent', async () => {
    const { store } = await setUp();
    const parent = await store.get('ns', 'w');
    const got = (await store.getSubresource('ns', 'w', 'scale')) as Scale;
    assert.deepEqual(got, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: {
        name: 'w',
        namespace: 'ns',
        uid: parent.metadata.uid,
        resourceVersion: parent.metadata.resourceVersion,
        creationTimestamp: parent.metadata.creationTimestamp,
      },
      spec: { replicas: 1 },
      status: { replicas: 1 },
    });
    await assert.rejects(store.getSubresource('ns', 'missing', 'scale'), isStatus(404, /widgets.things.example.com "missing" not found/));
  });

  const writes: { name: string; write: (store: ResourceStore<Widget>) => Promise<{ object: KubeObject }> }[] = [
    {
      name: 'PUT',
      write: (s) => s.updateSubresource('ns', 'w', 'scale', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'w' }, spec: { replicas: 4 } }, { manager: 'scaler' }),
    },
    ...(
      [
        ['json patch', { type: 'json', patch: [{ op: 'replace', path: '/spec/replicas', value: 4 }] }],
        ['merge patch', { type: 'merge', patch: { spec: { replicas: 4 } } }],
        ['strategic merge patch', { type: 'strategic', patch: { spec: { replicas: 4 } } }],
        ['apply (forced: the creator owns replicas)', { type: 'apply', patch: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 4 } }, force: true }],
      ] as [string, Omit<PatchRequest, 'manager'>][]
    ).map(([name, request]) => ({ name, write: (s: ResourceStore<Widget>) => s.patchSubresource('ns', 'w', 'scale', { ...request, manager: 'scaler' }) })),
  ];

  for (const { name, write } of writes) {
    it(`${name}: stores the replicas in the parent and nothing else, answers that kind of what was stored`, async () => {
      const { store, admitted } = await setUp();
      const before = await store.get('ns', 'w');
      const { object } = await write(store);
      const after = await store.get('ns', 'w');
      assert.equal(after.spec?.replicas, 4);
      assert.equal(after.spec?.color, 'blue', 'the parent’s other fields are untouched');
      assert.deepEqual(after.metadata.labels, { app: 'w' });
      assert.deepEqual(after.status, { replicas: 1 }, 'status untouched');
      assert.equal(after.metadata.generation, 2, 'a spec change is a new generation');
      assert.equal(object.kind, 'Scale');
      assert.equal(object.metadata.resourceVersion, after.metadata.resourceVersion);
      assert.deepEqual((object as Scale).spec, { replicas: 4 });
      assert.equal(object.metadata.managedFields, undefined, 'the answer carries no managedFields');

      // The manager owns what it changed, through the subresource; the creator keeps the rest.
      const operation = name.startsWith('apply') ? 'Apply' : 'Update';
      assert.deepEqual(owners(after), {
        'creator/Update/things.example.com/v1/': '.metadata.labels, .metadata.labels.app, .spec, .spec.color',
        [`scaler/${operation}/things.example.com/v1/scale`]: '.spec.replicas',
      });
      assert.equal(owners(before)['creator/Update/things.example.com/v1/'], '.metadata.labels, .metadata.labels.app, .spec, .spec.color, .spec.replicas');

      // Admission sees the update as upstream's: of the parent's resource, subresource scale, in Scale objects.
      assert.equal(admitted.length, 1);
      const [seen] = admitted;
      assert.equal(seen!.operation, 'UPDATE');
      assert.equal(seen!.subresource, 'scale');
      assert.equal(seen!.resource.resource, 'widgets');
      assert.equal(seen!.object?.kind, 'Scale');
      assert.deepEqual((seen!.object as Scale).spec, { replicas: 4 });
      assert.deepEqual((seen!.oldObject as Scale).spec, { replicas: 1 });
    });
  }

  it('PUT of the replicas there are already changes nothing: no new resourceVersion, no new owner', async () => {
    const { store } = await setUp();
    const before = await store.get('ns', 'w');
    const { object } = await store.updateSubresource('ns', 'w', 'scale', { metadata: { name: 'w' }, spec: { replicas: 1 } }, { manager: 'scaler' });
    assert.equal(object.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.deepEqual((await store.get('ns', 'w')).metadata.managedFields, before.metadata.managedFields);
  });

  it('a resourceVersion in the object is a precondition', async () => {
    const { store } = await setUp();
    const current = await store.get('ns', 'w');
    const scaleAt = (resourceVersion: string) => ({ metadata: { name: 'w', resourceVersion }, spec: { replicas: 2 } });
    await assert.rejects(
      store.updateSubresource('ns', 'w', 'scale', scaleAt('1')),
      isStatus(409, /Operation cannot be fulfilled on widgets.things.example.com "w": the object has been modified/),
    );
    const { object } = await store.updateSubresource('ns', 'w', 'scale', scaleAt(current.metadata.resourceVersion!));
    assert.deepEqual((object as Scale).spec, { replicas: 2 });
    // A patch that names a resourceVersion is held to it as well.
    await assert.rejects(
      store.patchSubresource('ns', 'w', 'scale', { type: 'merge', patch: { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { replicas: 3 } } }),
      isStatus(409),
    );
  });

  it('what the kind refuses is its 422, and nothing is stored', async () => {
    const { store } = await setUp();
    const before = await store.get('ns', 'w');
    await assert.rejects(
      store.updateSubresource('ns', 'w', 'scale', { metadata: { name: 'w' }, spec: { replicas: -1 } }),
      isStatus(422, /^Widget.things.example.com "w" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0$/),
    );
    await assert.rejects(store.patchSubresource('ns', 'w', 'scale', { type: 'merge', patch: { spec: { replicas: -1 } } }), isStatus(422));
    assert.equal((await store.get('ns', 'w')).metadata.resourceVersion, before.metadata.resourceVersion);
  });

  it('the parent is judged by its own update rules', async () => {
    const { store, storage } = await setUp();
    await storage.guaranteedUpdate<Widget>(store.resource.key('ns', 'w'), async (current) => ({ ...current!, spec: { ...current!.spec, color: 'invalid' } }));
    await assert.rejects(store.updateSubresource('ns', 'w', 'scale', { metadata: { name: 'w' }, spec: { replicas: 2 } }), isStatus(422, /spec.color: Invalid value: "invalid"/));
  });

  it('a patch is decoded as that kind: unknown fields with Strict are a 400, Warn warns and drops them', async () => {
    const { store } = await setUp();
    await assert.rejects(
      store.patchSubresource('ns', 'w', 'scale', { type: 'merge', patch: { spec: { replicas: 2, color: 'red' } }, fieldValidation: 'Strict' }),
      isStatus(400, /strict decoding error: unknown field "spec.color"/),
    );
    const { warnings } = await store.patchSubresource('ns', 'w', 'scale', { type: 'merge', patch: { spec: { replicas: 2, color: 'red' } }, fieldValidation: 'Warn' });
    assert.deepEqual(warnings, ['unknown field "spec.color"']);
    assert.equal((await store.get('ns', 'w')).spec?.color, 'blue');
    await assert.rejects(store.patchSubresource('ns', 'w', 'scale', { type: 'merge', patch: { spec: { replicas: 'two' } } }), isStatus(400, /Scale in version "v1" cannot be handled as a Scale/));
  });

  it('a PUT body is decoded with that kind’s schema and type meta', () => {
    const resolved = resolveResource(widgets, 'example.com').subresourceKinds.get('scale')!;
    assert.equal(resolved.apiVersion, 'autoscaling/v1');
    const decode = (value: unknown) => objectFromInput(resolved, { value, duplicates: [] }, 'Strict');
    assert.throws(() => decode({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: {}, spec: { replicas: 1, size: 2 } }), isStatus(400, /unknown field "spec.size"/));
    assert.throws(() => decode({ apiVersion: apiVersion, kind: 'Scale', metadata: {} }), isStatus(400, /does not match the expected API version \(autoscaling\/v1\)/));
    assert.throws(() => decode({ apiVersion: 'autoscaling/v1', kind: 'Widget', metadata: {} }), isStatus(400, /does not match the expected kind \(Scale\)/));
    assert.deepEqual(decode({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: {}, spec: { replicas: 1 } }).object.spec, { replicas: 1 });
  });

  it('the name must be the URL’s, and the parent must exist', async () => {
    const { store } = await setUp();
    await assert.rejects(
      store.updateSubresource('ns', 'w', 'scale', { metadata: { name: 'other' }, spec: { replicas: 2 } }),
      isStatus(400, /the name of the object \(other\) does not match the name on the URL \(w\)/),
    );
    await assert.rejects(store.updateSubresource('ns', 'missing', 'scale', { metadata: {}, spec: { replicas: 2 } }), isStatus(404));
    await assert.rejects(store.patchSubresource('ns', 'missing', 'scale', { type: 'apply', patch: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 } }, manager: 'm' }), isStatus(404));
  });

  it('dry run answers what would be stored, tells admission, and stores nothing', async () => {
    const { store, admitted } = await setUp();
    const before = await store.get('ns', 'w');
    const put = await store.updateSubresource('ns', 'w', 'scale', { metadata: { name: 'w' }, spec: { replicas: 7 } }, { dryRun: true });
    const patched = await store.patchSubresource('ns', 'w', 'scale', { type: 'merge', patch: { spec: { replicas: 8 } }, dryRun: true });
    assert.deepEqual([(put.object as Scale).spec, (patched.object as Scale).spec], [{ replicas: 7 }, { replicas: 8 }]);
    assert.ok(admitted.length === 2 && admitted.every((a) => a.dryRun));
    assert.deepEqual(await store.get('ns', 'w'), before);
  });

  it('apply conflicts with the parent’s owner of what it stands for, named as in that kind', async () => {
    const { store } = await setUp();
    const apply = (manager: string, replicas: number, force = false) =>
      store.patchSubresource('ns', 'w', 'scale', { type: 'apply', patch: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas } }, manager, force });
    await assert.rejects(apply('hpa', 3), isStatus(409, /^Apply failed with 1 conflict: conflict with "creator" using autoscaling\/v1: \.spec\.replicas$/));
    await apply('hpa', 3, true);
    // Now the applier owns the replicas: another manager conflicts with it, by its subresource.
    await assert.rejects(apply('other', 5), isStatus(409, /conflict with "hpa" with subresource "scale": \.spec\.replicas/));
    // Applying the same value again is no conflict and keeps the owner.
    await apply('hpa', 3);
    assert.deepEqual(owners(await store.get('ns', 'w'))['hpa/Apply/things.example.com/v1/scale'], '.spec.replicas');
    // An apply must name the kind it is served as.
    await assert.rejects(
      store.patchSubresource('ns', 'w', 'scale', { type: 'apply', patch: { apiVersion, kind: 'Widget', spec: { replicas: 1 } }, manager: 'x' }),
      isStatus(400, /invalid object type/),
    );
  });

  it('the object itself is not written through update or patch naming that subresource', async () => {
    const { store } = await setUp();
    await assert.rejects(store.update('ns', 'w', { metadata: { name: 'w' } }, { subresource: 'scale' }), /served as another kind/);
  });
});

describe('store: a subresource served as another kind, of an unstructured parent', () => {
  // A custom resource: stored in v1, served by v2 too; `spec.legacy` is no longer in the schema.
  const rules: UnstructuredRules = {
    storageVersion: 'v1',
    prune: (object) => {
      const spec = object.spec as Record<string, unknown> | undefined;
      if (!spec || !('legacy' in spec)) return [];
      delete spec.legacy;
      return ['spec.legacy'];
    },
    default: (object) => {
      const spec = object.spec as Record<string, unknown> | undefined;
      if (!spec || spec.color !== undefined) return false;
      spec.color = 'green';
      return true;
    },
  };
  const version = (v: string): ResourceDefinition<Widget> => ({ ...widgets, group: 'example.com', version: v, unstructured: rules });

  it('reads the parent as served and writes it in its storage version', async () => {
    const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
    const store = (v: string) => new ResourceStore(resolveResource(version(v), 'plat.io'), { storage, context: { domain: 'plat.io' } });
    const v1 = store('v1');
    const v2 = store('v2');
    await v1.create('ns', { metadata: { name: 'w' }, spec: { replicas: 1 } });
    const key = v1.resource.key('ns', 'w');
    // Written before the schema lost `legacy` and gained a default.
    await storage.guaranteedUpdate<KubeObject>(key, async (current) => ({ ...current!, spec: { replicas: 1, legacy: true } }));
    const { object } = await v2.patchSubresource('ns', 'w', 'scale', { type: 'merge', patch: { spec: { replicas: 6 } }, manager: 'scaler' });
    assert.deepEqual((object as Scale).spec, { replicas: 6 });
    const stored = await storage.get<Widget>(key);
    assert.equal(stored.apiVersion, 'example.com/v1');
    assert.deepEqual(stored.spec, { replicas: 6, color: 'green' }, 'pruned and defaulted as every write of the served form is');
    assert.equal((await v2.get('ns', 'w')).spec?.replicas, 6);
  });
});
