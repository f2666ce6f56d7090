// KVStorage with value transformers: what reaches the KV, reads, watches, the rewrite of
// stale values, and failures.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { KVStorage } from '../kv-storage.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryKV } from '../memory/kv.js';
import { SqliteStorage } from '../sqlite/store.js';
import { isStorageError } from '../errors.js';
import type { StoredObject } from '../interface.js';
import { AesGcmTransformer } from './aes.js';
import { identityTransformer } from './identity.js';
import { PrefixTransformers } from './prefix-transformers.js';
import { ResourceTransformers } from './resource-transformers.js';

const SECRET = '/core/secrets/default/s1';
const CONFIGMAP = '/core/configmaps/default/c1';

function secretsWith(keys: [string, Buffer][], withIdentity = false): ResourceTransformers {
  const aesgcm = {
    prefix: 'k8s:enc:aesgcm:v1:',
    name: 'provider aesgcm',
    transformer: new PrefixTransformers(
      keys.map(([name, key]) => ({ prefix: `${name}:`, name: `key "${name}"`, transformer: new AesGcmTransformer(key) })),
      'no matching key was found for the provided AES transformer',
    ),
  };
  const providers = withIdentity ? [aesgcm, { prefix: '', name: 'provider identity', transformer: identityTransformer }] : [aesgcm];
  return new ResourceTransformers([[{ group: '', resource: 'secrets' }, new PrefixTransformers(providers, 'no matching prefix found')]]);
}

interface Secret extends StoredObject {
  data: Record<string, string>;
}
const secret = (value: string): Secret => ({ metadata: { name: 's1', namespace: 'default' }, data: { password: value } });

async function raw(kv: MemoryKV, key: string): Promise<Buffer> {
  const stored = await kv.get(`/registry${key}`, 0);
  assert.ok(stored);
  return typeof stored.value === 'string' ? Buffer.from(stored.value) : stored.value;
}

describe('the store with encryption at rest', () => {
  const key1 = randomBytes(32);
  const key2 = randomBytes(32);

  it('keeps listed resources encrypted in the KV and reads, lists and watches them in clear', async () => {
    const kv = new MemoryKV();
    const store = new KVStorage(kv, '/registry', secretsWith([['key1', key1]]));
    const watch = await store.watch<Secret>('/core/secrets/', { recursive: true });
    const created = await store.create(SECRET, secret('hunter2'));
    await store.create(CONFIGMAP, { metadata: { name: 'c1', namespace: 'default' }, data: { plain: 'visible' } });
    const stored = await raw(kv, SECRET);
    assert.equal(stored.subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:key1:');
    assert.equal(stored.indexOf('hunter2'), -1);
    assert.match((await raw(kv, CONFIGMAP)).toString(), /"plain":"visible"/);
    assert.deepEqual((await store.get<Secret>(SECRET)).data, { password: 'hunter2' });
    assert.deepEqual((await store.list<Secret>('/core/secrets/')).items.map((item) => item.data.password), ['hunter2']);
    for await (const event of watch) {
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.data.password, 'hunter2');
      assert.equal(event.object.metadata!.resourceVersion, created.metadata!.resourceVersion);
      break;
    }
    watch.stop();
  });

  it('rotation: after a new key is put first, an unchanged update writes the value again with it', async () => {
    const kv = new MemoryKV();
    await new KVStorage(kv, '/registry', secretsWith([['key1', key1]])).create(SECRET, secret('hunter2'));
    const rotated = new KVStorage(kv, '/registry', secretsWith([['key2', key2], ['key1', key1]]));
    const before = await rotated.get<Secret>(SECRET);
    const after = await rotated.guaranteedUpdate<Secret>(SECRET, (current) => current!);
    assert.notEqual(after.metadata!.resourceVersion, before.metadata!.resourceVersion, 'a stale value is written even when unchanged');
    assert.equal((await raw(kv, SECRET)).subarray(0, 23).toString(), 'k8s:enc:aesgcm:v1:key2:');
    const again = await rotated.guaranteedUpdate<Secret>(SECRET, (current) => current!);
    assert.equal(again.metadata!.resourceVersion, after.metadata!.resourceVersion, 'a current value unchanged is not written');
    // The old key removed: still read.
    const newOnly = new KVStorage(kv, '/registry', secretsWith([['key2', key2]]));
    assert.deepEqual((await newOnly.get<Secret>(SECRET)).data, { password: 'hunter2' });
  });

  it('encrypting resources stored in clear: identity reads them until they are written again', async () => {
    const kv = new MemoryKV();
    await new KVStorage(kv, '/registry').create(SECRET, secret('hunter2'));
    const strict = new KVStorage(kv, '/registry', secretsWith([['key1', key1]]));
    await assert.rejects(strict.get(SECRET), { message: `unable to transform key "/registry${SECRET}": no matching prefix found` });
    const migrating = new KVStorage(kv, '/registry', secretsWith([['key1', key1]], true));
    await migrating.guaranteedUpdate<Secret>(SECRET, (current) => current!);
    assert.equal((await raw(kv, SECRET)).subarray(0, 18).toString(), 'k8s:enc:aesgcm:v1:');
    assert.deepEqual((await strict.get<Secret>(SECRET)).data, { password: 'hunter2' });
  });

  it('SQLite keeps the encrypted bytes as they are, across a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plat-encrypted-sqlite-'));
    try {
      const first = new SqliteStorage({ dir, prefix: '/registry', transformers: secretsWith([['key1', key1]]) });
      await first.create(SECRET, secret('hunter2'));
      await first.close();
      const second = new SqliteStorage({ dir, prefix: '/registry', transformers: secretsWith([['key1', key1]]) });
      assert.deepEqual((await second.get<Secret>(SECRET)).data, { password: 'hunter2' });
      await second.close();
      const unencrypted = new SqliteStorage({ dir, prefix: '/registry' });
      await assert.rejects(unencrypted.get(SECRET), /identity transformer tried to read encrypted data/);
      await unencrypted.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a wrong key or no configuration fails with an internal error naming the provider, never other data', async () => {
    const kv = new MemoryKV();
    await new KVStorage(kv, '/registry', secretsWith([['key1', key1]])).create(SECRET, secret('hunter2'));
    const cases: { name: string; store: KVStorage; message: string }[] = [
      {
        name: 'another secret under the same key name',
        store: new KVStorage(kv, '/registry', secretsWith([['key1', key2]])),
        message: `unable to transform key "/registry${SECRET}": provider aesgcm: key "key1": cipher: message authentication failed`,
      },
      {
        name: 'no encryption configured',
        store: new KVStorage(kv, '/registry'),
        message: `unable to transform key "/registry${SECRET}": identity transformer tried to read encrypted data`,
      },
    ];
    for (const { name, store, message } of cases) {
      for (const read of [() => store.get(SECRET), () => store.list('/core/secrets/'), () => store.guaranteedUpdate(SECRET, (current) => current!)]) {
        await assert.rejects(read(), (error: unknown) => isStorageError(error, 'Internal') && error.message === message, name);
      }
    }
  });
});
