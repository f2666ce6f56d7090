// DELETE with a propagationPolicy: the finalizers the garbage collector acts on, as upstream's
// deletionFinalizersForGarbageCollection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStorage } from '@plat/storage';
import type { KubeObject, ResourceDefinition } from './definition.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';
import type { PropagationPolicy } from './requests.js';

const widgets: ResourceDefinition = {
  group: 'things.{domain}',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singularName: 'widget',
  namespaced: false,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'delete', 'deletecollection'],
  schema: { type: 'object' },
  strategy: { validate: () => [], validateUpdate: () => [] },
  allowCreateOnUpdate: false,
};

const newStore = (): ResourceStore =>
  new ResourceStore(resolveResource(widgets, 'example.com'), {
    storage: createStorage({ backend: 'memory', compactionIntervalMs: 0 }),
    context: { domain: 'example.com' },
  });

const cases: {
  name: string;
  finalizers?: string[];
  policy?: PropagationPolicy;
  want: { deleted: boolean; finalizers?: string[] };
}[] = [
  { name: 'Background without finalizers deletes at once', policy: 'Background', want: { deleted: true } },
  { name: 'no policy without finalizers deletes at once', want: { deleted: true } },
  { name: 'Orphan adds orphan', policy: 'Orphan', want: { deleted: false, finalizers: ['orphan'] } },
  { name: 'Foreground adds foregroundDeletion', policy: 'Foreground', want: { deleted: false, finalizers: ['foregroundDeletion'] } },
  {
    name: 'Foreground keeps other finalizers and replaces orphan',
    finalizers: ['example.com/x', 'orphan'],
    policy: 'Foreground',
    want: { deleted: false, finalizers: ['example.com/x', 'foregroundDeletion'] },
  },
  { name: 'Background removes orphan, and then nothing holds the object', finalizers: ['orphan'], policy: 'Background', want: { deleted: true } },
  { name: 'no policy: an orphan finalizer already there decides', finalizers: ['orphan'], want: { deleted: false, finalizers: ['orphan'] } },
  { name: 'Background keeps other finalizers', finalizers: ['example.com/x'], policy: 'Background', want: { deleted: false, finalizers: ['example.com/x'] } },
];

for (const c of cases) {
  test(`store delete: ${c.name}`, async () => {
    const store = newStore();
    await store.create('', { metadata: { name: 'w', ...(c.finalizers && { finalizers: c.finalizers }) } });
    const result = await store.delete('', 'w', c.policy ? { propagationPolicy: c.policy } : {});
    assert.equal(result.deleted, c.want.deleted);
    if (c.want.deleted) {
      await assert.rejects(store.get('', 'w'), /not found/);
      return;
    }
    const stored = await store.get('', 'w');
    assert.deepEqual(stored.metadata.finalizers, c.want.finalizers);
    assert.ok(stored.metadata.deletionTimestamp);
  });
}

test('store delete: a second delete with another policy switches the finalizer of an object being deleted', async () => {
  const store = newStore();
  await store.create('', { metadata: { name: 'w' } });
  const first = await store.delete('', 'w', { propagationPolicy: 'Foreground' });
  const second = await store.delete('', 'w', { propagationPolicy: 'Orphan' });
  assert.equal(second.deleted, false);
  assert.deepEqual(second.object.metadata.finalizers, ['orphan']);
  assert.equal(second.object.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp);
  // Removing the last finalizer removes the object.
  const current = await store.get('', 'w');
  await store.update('', 'w', { ...current, metadata: { ...current.metadata, finalizers: [] } } as KubeObject);
  await assert.rejects(store.get('', 'w'), /not found/);
});

test('store delete: the uid precondition is checked before finalizers are added', async () => {
  const store = newStore();
  await store.create('', { metadata: { name: 'w' } });
  await assert.rejects(store.delete('', 'w', { propagationPolicy: 'Orphan', preconditions: { uid: 'other' } }), /Precondition failed: UID/);
  assert.equal((await store.get('', 'w')).metadata.finalizers, undefined);
});

test('store delete: dry run reports the finalizers without storing them', async () => {
  const store = newStore();
  await store.create('', { metadata: { name: 'w' } });
  const result = await store.delete('', 'w', { propagationPolicy: 'Foreground', dryRun: true });
  assert.deepEqual(result.object.metadata.finalizers, ['foregroundDeletion']);
  assert.equal((await store.get('', 'w')).metadata.finalizers, undefined);
});
