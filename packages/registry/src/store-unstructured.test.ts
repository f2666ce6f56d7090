// An unstructured kind (a custom resource) through the one store: stored in its storage version,
// served by each version with its own apiVersion, pruned and defaulted when decoded and when read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStorage, type Storage } from '@plat/storage';
import type { KubeObject, ResourceDefinition, UnstructuredRules } from './definition.js';
import { objectFromInput } from './object-input.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';
import { startWatch } from './watch.js';

interface Gadget extends KubeObject {
  spec?: { size?: number; color?: string; [key: string]: unknown };
  [key: string]: unknown;
}

// Stand-ins for a schema's pruning and defaults: spec may hold size and color; color defaults to "red".
const rules: UnstructuredRules = {
  storageVersion: 'v1',
  prune(object) {
    const pruned: string[] = [];
    for (const key of Object.keys(object)) {
      if (!['apiVersion', 'kind', 'metadata', 'spec'].includes(key)) {
        pruned.push(key);
        delete (object as Record<string, unknown>)[key];
      }
    }
    const spec = (object as Gadget).spec;
    for (const key of Object.keys(spec ?? {})) {
      if (key !== 'size' && key !== 'color') {
        pruned.push(`spec.${key}`);
        delete spec![key];
      }
    }
    return pruned;
  },
  default(object) {
    const spec = (object as Gadget).spec;
    if (!spec || spec.color !== undefined) return false;
    spec.color = 'red';
    return true;
  },
};

const gadgets = (version: string): ResourceDefinition<Gadget> => ({
  group: 'example.com',
  version,
  kind: 'Gadget',
  resource: 'gadgets',
  singularName: 'gadget',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'],
  schema: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
      spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
    },
  },
  // Defaults are the strategy's, as for every kind: every write gets them, however it came.
  strategy: { default: (object) => void rules.default(object), validate: () => [], validateUpdate: () => [] },
  allowCreateOnUpdate: false,
  unstructured: rules,
});

function setUp(): { v1: ResourceStore<Gadget>; v2: ResourceStore<Gadget>; storage: Storage } {
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const store = (version: string) => new ResourceStore(resolveResource(gadgets(version), 'plat.io'), { storage, context: { domain: 'plat.io' } });
  return { v1: store('v1'), v2: store('v2'), storage };
}

describe('store: an unstructured kind', () => {
  it('is stored in the storage version whichever version writes it, and served in each', async () => {
    const { v1, v2, storage } = setUp();
    const created = await v2.create('ns', { metadata: { name: 'a' }, spec: { size: 1 } });
    assert.equal(created.apiVersion, 'example.com/v2');
    assert.equal(created.spec?.color, 'red');
    const stored = await storage.get<Gadget>(v1.resource.key('ns', 'a'));
    assert.equal(stored.apiVersion, 'example.com/v1');
    assert.equal((await v1.get('ns', 'a')).apiVersion, 'example.com/v1');
    assert.equal((await v2.get('ns', 'a')).apiVersion, 'example.com/v2');
    const updated = await v2.update('ns', 'a', { ...created, spec: { size: 2, color: 'blue' } });
    assert.equal(updated.object.apiVersion, 'example.com/v2');
    assert.equal((await storage.get<Gadget>(v1.resource.key('ns', 'a'))).apiVersion, 'example.com/v1');
    const patched = await v2.patch('ns', 'a', { type: 'merge', patch: { spec: { size: 3 } } });
    assert.equal(patched.object.apiVersion, 'example.com/v2');
    assert.equal((await storage.get<Gadget>(v1.resource.key('ns', 'a'))).spec?.size, 3);
  });

  it('lists items with their apiVersion and kind, as unstructured lists do', async () => {
    const { v1, v2 } = setUp();
    await v1.create('ns', { metadata: { name: 'a' }, spec: { size: 1 } });
    const list = await v2.list('ns', {});
    assert.deepEqual(
      list.items.map((item) => [item.apiVersion, item.kind, item.metadata.name]),
      [['example.com/v2', 'Gadget', 'a']],
    );
  });

  it('prunes and defaults what it reads from storage: fields written before the schema changed', async () => {
    const { v1, storage } = setUp();
    // As written by an older schema: an unknown field, and no color.
    await storage.create(v1.resource.key('ns', 'old'), { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'old', namespace: 'ns' }, spec: { size: 1, shape: 'round' } });
    const read = await v1.get('ns', 'old');
    assert.deepEqual(read.spec, { size: 1, color: 'red' });
    const [item] = (await v1.list('ns', {})).items;
    assert.deepEqual(item!.spec, { size: 1, color: 'red' });
    // An update works on the object as read: what it does not name stays pruned and defaulted.
    const patched = await v1.patch('ns', 'old', { type: 'merge', patch: { metadata: { labels: { a: 'b' } } } });
    assert.deepEqual(patched.object.spec, { size: 1, color: 'red' });
    assert.deepEqual((await storage.get<Gadget>(v1.resource.key('ns', 'old'))).spec, { size: 1, color: 'red' });
  });

  it('watches in the version watched', async () => {
    const { v1, v2 } = setUp();
    const watch = await startWatch(v2, 'ns', { resourceVersion: String(await v1.storage.currentRevision()) }, { bookmarkIntervalMs: 60_000 });
    await v1.create('ns', { metadata: { name: 'w' }, spec: { size: 1 } });
    const iterator = watch[Symbol.asyncIterator]();
    const { value } = await iterator.next();
    watch.stop();
    const object = value!.object as Gadget;
    assert.equal(value!.type, 'ADDED');
    assert.equal(object.apiVersion, 'example.com/v2');
    assert.equal(object.spec?.color, 'red');
  });

  const decodeCases: [name: string, body: Record<string, unknown>, level: 'Strict' | 'Warn' | 'Ignore', expect: { error?: RegExp; warnings?: string[]; spec?: unknown }][] = [
    ['Strict: an unknown field is a 400 naming it', { spec: { size: 1, shape: 'x' } }, 'Strict', { error: /strict decoding error: unknown field "spec\.shape"/ }],
    ['Warn: a warning, and the field dropped', { spec: { size: 1, shape: 'x' } }, 'Warn', { warnings: ['unknown field "spec.shape"'], spec: { size: 1 } }],
    ['Ignore: dropped silently', { spec: { size: 1, shape: 'x' }, extra: 1 }, 'Ignore', { warnings: [], spec: { size: 1 } }],
    ['unknown metadata fields are found too', { metadata: { name: 'a', nick: 'b' }, spec: {} }, 'Warn', { warnings: ['unknown field "metadata.nick"'], spec: {} }],
    ['metadata is typed: a label that is no string is a 400', { metadata: { name: 'a', labels: { a: 1 } } }, 'Warn', { error: /metadata\.labels\.a/ }],
    ['fields outside metadata are not type-checked while decoding', { spec: { size: 'big' } }, 'Strict', { warnings: [], spec: { size: 'big' } }],
  ];
  for (const [name, body, level, expect] of decodeCases) {
    it(`decoding: ${name}`, () => {
      const { v1 } = setUp();
      const value = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'a' }, ...body };
      if (expect.error) {
        assert.throws(() => objectFromInput(v1.resource, { value, duplicates: [] }, level), (error: Error) => expect.error!.test(error.message));
        return;
      }
      const { object, warnings } = objectFromInput(v1.resource, { value, duplicates: [] }, level);
      assert.deepEqual(warnings, expect.warnings);
      assert.deepEqual(object.spec, expect.spec);
    });
  }
});
