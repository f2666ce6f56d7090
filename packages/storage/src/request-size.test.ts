import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ETCD_DEFAULT_MAX_REQUEST_BYTES, compareAndPutRequestBytes } from './request-size.js';
import { encodeTxnRequest } from './etcd/wire.js';
import { EtcdStorage } from './etcd/store.js';
import { MemoryStorage } from './memory/store.js';
import { startEtcd, type EtcdProcess } from './testing/etcd-process.js';
import { isStorageError } from './errors.js';
import type { Storage } from './interface.js';

const varintSize = (value: number): number => (value < 0x80 ? 1 : 1 + varintSize(Math.floor(value / 0x80)));

describe('compareAndPutRequestBytes', () => {
  // etcd counts the transaction EtcdKV sends, wrapped with a 14-byte header (a 10-byte request ID).
  for (const [keyBytes, valueBytes, modRevision] of [
    [1, 0, 0],
    [40, 1000, 0],
    [40, 1_572_698, 0],
    [300, 100, 123_456_789],
    [60, 3_000_000, 2 ** 40],
  ] as const) {
    it(`a key of ${keyBytes} bytes, a value of ${valueBytes}, expecting mod revision ${modRevision}`, () => {
      const key = Buffer.alloc(keyBytes, 'k');
      const txn = encodeTxnRequest({
        compare: [{ key, result: 'Equal', modRevision }],
        success: [{ put: { key, value: Buffer.alloc(valueBytes, 'v') } }],
        failure: [{ range: { key } }],
      });
      assert.equal(compareAndPutRequestBytes(keyBytes, valueBytes, modRevision), 14 + 1 + varintSize(txn.length) + txn.length);
    });
  }
});

/** The largest object `data` a create at `key` may carry, by the rule (the JSON around it is ASCII). */
function largestData(storage: string, key: string): number {
  const encoded = (length: number): number => JSON.stringify({ metadata: { name: 'a' }, data: 'x'.repeat(length) }).length;
  let length = ETCD_DEFAULT_MAX_REQUEST_BYTES;
  while (compareAndPutRequestBytes(Buffer.byteLength(storage + key), encoded(length), 0) > ETCD_DEFAULT_MAX_REQUEST_BYTES) length--;
  return length;
}

const refusedAsTooLarge = async (write: Promise<unknown>): Promise<boolean> =>
  write.then(
    () => false,
    (error: unknown) => {
      if (isStorageError(error, 'RequestTooLarge')) return true;
      throw error;
    },
  );

describe('the largest write, on a default etcd and on the embedded backend', () => {
  let etcd: EtcdProcess;
  let stores: Storage[] = [];
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    stores = [];
    await etcd.stop();
  });

  it('etcd takes the largest write the rule allows, and refuses a few bytes more', async () => {
    const store = new EtcdStorage({ hosts: [etcd.endpoint], prefix: '/limit', compactionIntervalMs: 0, onBackgroundError: () => {} });
    stores.push(store);
    const length = largestData('/limit', '/things/a');
    await store.create('/things/a', { metadata: { name: 'a' }, data: 'x'.repeat(length) });
    // The rule counts etcd's request ID at its largest (10 bytes); an etcd whose member ID makes
    // it shorter takes up to 3 bytes more.
    assert.ok(await refusedAsTooLarge(store.create('/things/b', { metadata: { name: 'a' }, data: 'x'.repeat(length + 4) })));
  });

  it('the embedded backend takes the same, and refuses one byte more', async () => {
    const store = new MemoryStorage();
    stores.push(store);
    const length = largestData('', '/things/a');
    await store.create('/things/a', { metadata: { name: 'a' }, data: 'x'.repeat(length) });
    assert.ok(await refusedAsTooLarge(store.create('/things/b', { metadata: { name: 'a' }, data: 'x'.repeat(length + 1) })));
  });
});
