// Dry-run storage: the same answers as the store it wraps, and nothing written.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dryRunStorage } from './dry-run.js';
import { isStorageError } from './errors.js';
import type { StoredObject } from './interface.js';
import { MemoryStorage } from './memory/store.js';

const thing = (name: string, data = 'x'): StoredObject => ({ metadata: { name, uid: `uid-${name}` }, data });

describe('dry-run storage', () => {
  const setUp = async () => {
    const storage = new MemoryStorage();
    const stored = await storage.create('/things/a', thing('a'));
    return { storage, dry: dryRunStorage(storage), stored, revision: await storage.currentRevision() };
  };
  const code = (code: string) => (error: unknown) => isStorageError(error) && error.code === code;

  it('create answers with the object and stores nothing; a taken key is AlreadyExists', async () => {
    const { storage, dry, revision } = await setUp();
    assert.deepEqual(await dry.create('/things/b', thing('b')), thing('b'));
    await assert.rejects(storage.get('/things/b'), code('NotFound'));
    await assert.rejects(dry.create('/things/a', thing('a')), code('AlreadyExists'));
    assert.equal(await storage.currentRevision(), revision);
  });

  it('guaranteedUpdate runs the update on the current object and stores nothing', async () => {
    const { storage, dry, stored, revision } = await setUp();
    const updated = await dry.guaranteedUpdate<StoredObject>('/things/a', (current) => ({ ...current!, data: 'y' }));
    assert.equal(updated.data, 'y');
    assert.equal(updated.metadata?.resourceVersion, stored.metadata?.resourceVersion, 'the current resourceVersion');
    assert.equal((await storage.get<StoredObject>('/things/a')).data, 'x');
    assert.equal(await storage.currentRevision(), revision);
  });

  it('guaranteedUpdate checks preconditions, and creates only with ignoreNotFound', async () => {
    const { dry } = await setUp();
    await assert.rejects(dry.guaranteedUpdate('/things/a', (c) => c!, { preconditions: { uid: 'other' } }), code('Conflict'));
    await assert.rejects(dry.guaranteedUpdate('/things/missing', (c) => c!), code('NotFound'));
    let seen: unknown = 'not called';
    await dry.guaranteedUpdate('/things/missing', (current) => ((seen = current), thing('missing')), { ignoreNotFound: true });
    assert.equal(seen, null);
  });

  it('delete answers with the object, checks preconditions and the deletion check, and deletes nothing', async () => {
    const { storage, dry, revision } = await setUp();
    assert.equal((await dry.delete<StoredObject>('/things/a')).data, 'x');
    await assert.rejects(dry.delete('/things/a', { preconditions: { resourceVersion: '999999' } }), code('Conflict'));
    await assert.rejects(
      dry.delete('/things/a', {
        validateDeletion: () => {
          throw new Error('not now');
        },
      }),
      /not now/,
    );
    await assert.rejects(dry.delete('/things/missing'), code('NotFound'));
    await storage.get('/things/a');
    assert.equal(await storage.currentRevision(), revision);
  });
});
