// Admission through the one store: what a mutating plugin returns is what is validated and stored,
// decoded and defaulted again, with what the server and the strategy decide kept theirs; a write
// through a subresource served as another kind is admitted as that kind, and its change goes back
// into the parent; the kind's own checks and validating admission see the final object.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { invalid, isStatusError, newPath } from '@plat/apimachinery';
import { createStorage } from '@plat/storage';
import type { KubeObject, ResourceDefinition, SubresourceKind } from './definition.js';
import type { Admission, AdmissionAttributes } from './requests.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';

interface Gadget extends KubeObject {
  spec?: { replicas?: number; color?: string; size?: string };
  status?: { ready?: boolean };
}

const closed = (properties: Record<string, unknown>) => ({ type: 'object', properties, additionalProperties: false });

const scale: SubresourceKind<Gadget> = {
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  schema: closed({
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    spec: closed({ replicas: { type: 'integer' } }),
    status: closed({ replicas: { type: 'integer' } }),
  }),
  fromParent: (gadget) => ({
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: gadget.metadata.name, namespace: gadget.metadata.namespace, resourceVersion: gadget.metadata.resourceVersion },
    spec: { replicas: gadget.spec?.replicas ?? 0 },
  }),
  toParent: (object, gadget) => {
    gadget.spec = { ...gadget.spec, replicas: (object as { spec?: { replicas?: number } }).spec?.replicas ?? 0 };
    return gadget;
  },
  fields: [{ field: ['spec', 'replicas'], parentField: ['spec', 'replicas'] }],
};

const gadgets: ResourceDefinition<Gadget> = {
  group: 'things.{domain}',
  version: 'v1',
  kind: 'Gadget',
  resource: 'gadgets',
  singularName: 'gadget',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  schema: closed({
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    spec: closed({ replicas: { type: 'integer' }, color: { type: 'string' }, size: { type: 'string' } }),
    status: closed({ ready: { type: 'boolean' } }),
  }),
  strategy: {
    tracksGeneration: true,
    default: (gadget) => {
      gadget.spec ??= {};
      gadget.spec.size ??= 'medium';
    },
    // As a kind with a status subresource: a create or an update of the object writes no status.
    prepareForCreate: (gadget) => void delete gadget.status,
    prepareForUpdate: (gadget, old) => {
      if (old.status) gadget.status = old.status;
      else delete gadget.status;
    },
    validate: (gadget) => (gadget.spec?.color === 'invalid' ? [invalid(newPath('spec', 'color'), 'invalid', 'is not a color')] : []),
    validateUpdate: (gadget) => (gadget.spec?.color === 'invalid' ? [invalid(newPath('spec', 'color'), 'invalid', 'is not a color')] : []),
  },
  allowCreateOnUpdate: false,
  subresources: {
    scale: { servedAs: scale },
    status: {
      merge: (gadget, old) => ({ ...old, status: gadget.status }),
      validateUpdate: () => [],
    },
  },
};

/** A store whose admission runs `mutate` on every write, recording what each phase and check saw. */
function storeWith(mutate: (attributes: AdmissionAttributes) => KubeObject | undefined) {
  const seen = { mutating: [] as AdmissionAttributes[], checks: [] as KubeObject[], validating: [] as KubeObject[] };
  const admission: Admission = {
    mutate: async (attributes) => {
      seen.mutating.push(attributes);
      return mutate(attributes);
    },
    validate: async (attributes) => void seen.validating.push(attributes.object!),
  };
  const store = new ResourceStore(resolveResource(gadgets, 'example.com'), {
    storage: createStorage({ backend: 'memory', compactionIntervalMs: 0 }),
    context: { domain: 'example.com' },
    admission,
    checks: { beforeValidation: [(attributes) => void seen.checks.push(attributes.object!)], afterValidation: [] },
  });
  return { store, seen };
}

const copy = <T>(value: T): T => structuredClone(value);

describe('mutating admission through the store', () => {
  it('create: the plugin\'s object is pruned, defaulted, prepared and validated, then stored; the server\'s metadata stays its', async () => {
    const { store, seen } = storeWith(({ object }) => {
      const changed = copy(object!) as Gadget & { spec: Record<string, unknown> };
      changed.metadata.labels = { injected: 'yes' };
      changed.metadata.uid = 'chosen-by-plugin';
      changed.spec.color = 'blue';
      changed.spec.bogus = 'dropped';
      delete changed.spec.size;
      changed.status = { ready: true };
      return changed;
    });
    const created = await store.create('ns', { metadata: { name: 'g' }, spec: { replicas: 1 } });
    assert.deepEqual(created.metadata.labels, { injected: 'yes' });
    assert.deepEqual(created.spec, { replicas: 1, color: 'blue', size: 'medium' }, 'pruned, and defaulted again');
    assert.equal(created.status, undefined, 'the strategy writes no status on create');
    assert.notEqual(created.metadata.uid, 'chosen-by-plugin');
    assert.equal(created.metadata.uid, (seen.mutating[0]!.object as Gadget).metadata.uid, 'the uid the server gave before admission');
    assert.deepEqual((seen.checks[0] as Gadget).spec, created.spec, 'the kind\'s checks see the changed object');
    assert.deepEqual((seen.validating[0] as Gadget).spec, created.spec, 'validating admission sees it too');
    assert.deepEqual((await store.get('ns', 'g')).spec, created.spec, 'stored');
    assert.equal(seen.mutating[0]!.kind.kind, 'Gadget');
    assert.match(seen.mutating[0]!.uid, /^[0-9a-f-]{36}$/);
  });

  it('the kind\'s validation judges the changed object: a plugin that makes it invalid gets the 422', async () => {
    const { store } = storeWith(({ object }) => ({ ...copy(object!), spec: { color: 'invalid' } }));
    await assert.rejects(store.create('ns', { metadata: { name: 'bad' } }), (error: unknown) => isStatusError(error) && error.code === 422 && /is not a color/.test(error.message));
  });

  it('a plugin may not rename or move the object: 500', async () => {
    const { store } = storeWith(({ object }) => ({ ...copy(object!), metadata: { ...object!.metadata, name: 'other' } }));
    await assert.rejects(store.create('ns', { metadata: { name: 'g' } }), (error: unknown) => isStatusError(error) && error.code === 500 && /name or namespace/.test(error.message));
  });

  it('update: the generation counts the plugin\'s change of the spec; the status stays the stored one', async () => {
    let mutate = false;
    const { store } = storeWith(({ object }) => (mutate ? { ...copy(object!), spec: { ...(object as Gadget).spec, color: 'red' }, status: { ready: true } } : undefined));
    const created = await store.create('ns', { metadata: { name: 'g' }, spec: { replicas: 1 } });
    mutate = true;
    const { object: updated } = await store.update('ns', 'g', { ...created, metadata: { ...created.metadata } });
    assert.equal(updated.spec?.color, 'red');
    assert.equal(updated.metadata.generation, 2, 'the plugin changed the spec');
    assert.equal(updated.status, undefined, 'an update of the object writes no status');
  });

  it('a status update: only the status the plugin leaves is stored, not a change it made elsewhere', async () => {
    const { store } = storeWith(({ object, subresource }) =>
      subresource === 'status' ? { ...copy(object!), spec: { ...(object as Gadget).spec, color: 'green' }, status: { ready: false } } : undefined,
    );
    const created = await store.create('ns', { metadata: { name: 'g' }, spec: { replicas: 1 } });
    const { object: updated } = await store.update('ns', 'g', { ...created, status: { ready: true } }, { subresource: 'status' });
    assert.deepEqual(updated.status, { ready: false });
    assert.equal(updated.spec?.color, undefined);
  });

  it('a write through a subresource served as another kind is admitted as that kind; its change goes into the parent', async () => {
    const { store, seen } = storeWith(({ object, subresource }) => (subresource === 'scale' ? { ...copy(object!), spec: { replicas: 7 } } : undefined));
    await store.create('ns', { metadata: { name: 'g' }, spec: { replicas: 1, color: 'blue' } });
    const { object } = await store.updateSubresource('ns', 'g', 'scale', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'g', namespace: 'ns' }, spec: { replicas: 3 } } as KubeObject);
    const admitted = seen.mutating.at(-1)!;
    assert.deepEqual(admitted.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.equal(admitted.object?.kind, 'Scale');
    assert.deepEqual((object as KubeObject & { spec?: unknown }).spec, { replicas: 7 }, 'answered with the Scale admission made');
    const stored = await store.get('ns', 'g');
    assert.deepEqual(stored.spec, { replicas: 7, color: 'blue', size: 'medium' });
    assert.deepEqual((seen.validating.at(-1) as KubeObject & { spec?: unknown }).spec, { replicas: 7 }, 'validating admission sees the Scale as stored');
  });
});
