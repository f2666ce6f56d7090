import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runStorageConformance } from '../testing/conformance.js';
import { startEtcd, type EtcdProcess } from '../testing/etcd-process.js';
import { startThrottledProxy } from '../testing/throttled-proxy.js';
import { EtcdStorage } from './store.js';
import { EtcdChannel } from './channel.js';
import { EtcdKV } from './kv.js';
import { decodeRangeResponse, encodeRangeRequest } from './wire.js';
import { Compactor, COMPACT_REVISION_KEY } from './compactor.js';
import type { StoredObject, WatchEvent } from '../interface.js';

let etcd: EtcdProcess;
const stores: EtcdStorage[] = [];
const newStore = (prefix = '/registry'): EtcdStorage => {
  const store = new EtcdStorage({
    hosts: [etcd.endpoint],
    prefix,
    compactionIntervalMs: 0,
    onBackgroundError: (error) => assert.fail(`background error: ${String(error)}`),
  });
  stores.push(store);
  return store;
};

before(async () => {
  etcd = await startEtcd();
});
after(async () => {
  await Promise.all(stores.map((store) => store.close().catch(() => {})));
  await etcd.stop();
});

runStorageConformance({ name: 'etcd3', newStore: async () => newStore() });

describe('etcd backend', () => {
  it('stores objects under <prefix>/<key> as JSON without resourceVersion', async () => {
    const store = newStore('/plat-test/');
    await store.create('/core/namespaces/default', { metadata: { name: 'default', resourceVersion: '12' } });
    const channel = new EtcdChannel({ endpoints: [etcd.endpoint], timeoutMs: 5000 });
    try {
      const range = decodeRangeResponse(await channel.call('/etcdserverpb.KV/Range', encodeRangeRequest({ key: Buffer.from('/plat-test/core/namespaces/default') })));
      assert.deepEqual(JSON.parse(range.kvs[0]?.value.toString() ?? 'null'), { metadata: { name: 'default' } });
    } finally {
      channel.close();
    }
  });

  it('a watch cut by an etcd restart in the middle of a 2,000-event catch-up resumes with no event lost or repeated', async () => {
    // Through a proxy that slows etcd's answers to 4 MB/s, the 16 MB catch-up takes about four
    // seconds, so the restart after the first 100 events falls in its middle every time.
    const proxy = await startThrottledProxy(etcd.endpoint, 4 * 1024 * 1024);
    const store = new EtcdStorage({
      hosts: [proxy.endpoint],
      prefix: '/catch-up',
      compactionIntervalMs: 0,
      onBackgroundError: (error) => assert.fail(`background error: ${String(error)}`),
    });
    stores.push(store);
    const start = await store.currentRevision();
    const payload = 'x'.repeat(8 * 1024);
    for (let i = 0; i < 2000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => store.create(`/items/${i + j}`, { metadata: { name: `${i + j}` }, payload })),
      );
    }
    const end = await store.currentRevision();
    assert.equal(end - start, 2000);

    const watch = await store.watch<StoredObject>('/items/', { recursive: true, revision: start });
    const received: WatchEvent[] = [];
    let restarted: Promise<void> | undefined;
    for await (const event of watch) {
      received.push(event);
      if (received.length === 100) {
        assert.ok(store.watchStreamsOpened === 1);
        await etcd.kill();
        restarted = etcd.restart();
      }
      if (received.length === 2000) break;
    }
    watch.stop();
    await restarted;
    await proxy.close();
    assert.ok(store.watchStreamsOpened > 1, 'the watch should have resumed on a new stream');
    const resumedAt = store.lastWatchStreamStart;
    assert.ok(resumedAt > start + 100 && resumedAt <= end, `resumed at ${resumedAt}: not in the middle of the catch-up`);
    const revisions = received.map((event) => event.revision);
    assert.deepEqual(
      revisions,
      Array.from({ length: 2000 }, (_, i) => start + 1 + i),
    );
    assert.ok(received.every((event) => event.type === 'ADDED'));
  });

  it('checkHealth fails within 5 s of etcd going down and recovers when it returns', async () => {
    const store = newStore();
    await store.checkHealth();
    await etcd.kill();
    const downAt = Date.now();
    try {
      // It passes for a moment after the store's last answer (an election is not an outage).
      for (;;) {
        const failed = await store.checkHealth().then(
          () => false,
          () => true,
        );
        if (failed) break;
        assert.ok(Date.now() - downAt < 5000, 'checkHealth still passes 5 s after etcd went down');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await etcd.restart();
    }
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await store.checkHealth();
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    await store.create('/after-restart/a', { metadata: { name: 'a' } });
  });

  it('two replicas compact at most once per interval between them, keeping one interval of history', async () => {
    const clients = [0, 1].map(() => new EtcdKV(new EtcdChannel({ endpoints: [etcd.endpoint], timeoutMs: 5000 })));
    const compacted: Array<[number, number]> = [];
    const compactors = clients.map(
      (client, replica) =>
        new Compactor(client, {
          intervalMs: 3_600_000, // ticks are driven by hand below
          onCompacted: (revision) => compacted.push([replica, revision]),
          onError: (error) => assert.fail(String(error)),
        }),
    );
    try {
      const key = Buffer.from(COMPACT_REVISION_KEY);
      await clients[0]!.txn({ compare: [], success: [{ deleteRange: { key } }], failure: [] });
      const store = newStore('/compaction');
      const revisionsAtTicks: number[] = [];
      for (let interval = 0; interval < 4; interval++) {
        await store.create(`/things/${interval}`, { metadata: { name: `${interval}` } });
        revisionsAtTicks.push(await store.currentRevision());
        // Both replicas tick in the same interval, in either order.
        const order = interval % 2 === 0 ? [0, 1] : [1, 0];
        for (const replica of order) await compactors[replica]!.tick();
      }
      // Interval 0 only records a revision; each later interval compacts exactly once, at the
      // revision recorded one interval before.
      assert.equal(compacted.length, 3);
      for (const [index, [, revision]] of compacted.entries()) {
        assert.ok(revision >= revisionsAtTicks[index]!, `compacted ${revision} before ${revisionsAtTicks[index]}`);
        assert.ok(revision < revisionsAtTicks[index + 1]!, `compacted ${revision}, newer than one interval ago`);
      }
      await assert.rejects(store.get('/things/0', { revision: revisionsAtTicks[0]! - 1 }), { code: 'Gone' });
    } finally {
      await Promise.all(compactors.map((compactor) => compactor.stop()));
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});
