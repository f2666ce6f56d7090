// Continue tokens made above the storage (continueAfter, continueAtLatest): the stores' own form, so
// a list that chooses where its page ends hands out tokens the stores continue from.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { continueAfter, continueAtLatest } from './continue-token.js';
import type { StoredObject } from './interface.js';
import { MemoryKV } from './memory/kv.js';
import { KVStorage } from './kv-storage.js';

const names = (items: StoredObject[]): (string | undefined)[] => items.map((item) => item.metadata?.name);

describe('continue tokens made above the storage', () => {
  const setUp = async () => {
    // A storage prefix of its own: tokens are relative to the list's prefix, whatever it is.
    const storage = new KVStorage(new MemoryKV(), '/registry');
    for (const name of ['a', 'b', 'c', 'd']) await storage.create(`/things/ns/${name}`, { metadata: { name } });
    await storage.create('/thingsmore/x', { metadata: { name: 'x' } });
    return storage;
  };

  it('continueAfter an item is the token the store gives for a page ending at it', async () => {
    const storage = await setUp();
    const page = await storage.list('/things/', { limit: 2 });
    assert.deepEqual(page.keys, ['/things/ns/a', '/things/ns/b']);
    assert.equal(continueAfter('/things/', page.revision, page.keys![1]!), page.continue);
  });

  it('continueAfter an item continues the list after it, at the revision given', async () => {
    const storage = await setUp();
    const page = await storage.list('/things/', { limit: 3 });
    await storage.create('/things/ns/bb', { metadata: { name: 'bb' } });
    const rest = await storage.list('/things/', { continue: continueAfter('/things/', page.revision, page.keys![0]!) });
    assert.deepEqual(names(rest.items), ['b', 'c', 'd'], 'not bb: written after the revision');
    assert.equal(rest.revision, page.revision);
  });

  it('continueAtLatest starts where the token does, at the latest revision', async () => {
    const storage = await setUp();
    const page = await storage.list('/things/', { limit: 1 });
    await storage.create('/things/ns/bb', { metadata: { name: 'bb' } });
    const latest = await storage.currentRevision();
    const rest = await storage.list('/things/', { continue: continueAtLatest(page.continue, '/things/') });
    assert.deepEqual(names(rest.items), ['b', 'bb', 'c', 'd']);
    assert.equal(rest.revision, latest);
  });
});
