import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runStorageConformance } from '../testing/conformance.js';
import { startEtcd, type EtcdProcess } from '../testing/etcd-process.js';
import { EtcdStorage } from '../etcd/store.js';
import { CachedStorage } from './cached-storage.js';
import type { Storage, StoredObject, Watch, WatchEvent } from '../interface.js';

let etcd: EtcdProcess;
const stores: Storage[] = [];
const newInner = (prefix: string): EtcdStorage => {
  const store = new EtcdStorage({
    hosts: [etcd.endpoint],
    prefix,
    compactionIntervalMs: 0,
    onBackgroundError: (error) => assert.fail(`background error: ${String(error)}`),
  });
  stores.push(store);
  return store;
};
const newCached = (prefix: string, options: ConstructorParameters<typeof CachedStorage>[1] = {}): { inner: EtcdStorage; store: CachedStorage } => {
  const inner = newInner(prefix);
  const store = new CachedStorage(inner, options);
  stores.push(store);
  return { inner, store };
};

before(async () => {
  // Periodic progress notifications as a cluster is run with them (kube-up: 5 s), sooner: a new
  // cache's window is filled back once one comes (etcd 3.4.23 answers progress requests unsafely).
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
});
after(async () => {
  await Promise.all(stores.map((store) => store.close().catch(() => {})));
  await etcd.stop();
});

runStorageConformance({ name: 'watch cache over etcd3', newStore: async () => newCached('/registry').store });

async function etcdVersion(): Promise<string> {
  const store = newInner('/version');
  return (await store.status()).version;
}

/** The first release of each minor line whose progress requests are safe (etcd#15220, etcd#17507), as upstream's check. */
const progressSafeFrom: Record<string, number> = { '3.4': 31, '3.5': 13 };
const progressRequestsExpected = (version: string): boolean => {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  if (major > 3 || (major === 3 && minor >= 6)) return true;
  const first = progressSafeFrom[`${major}.${minor}`];
  return first !== undefined && patch >= first;
};

const item = (name: string, n = 0): StoredObject => ({ metadata: { name, namespace: 'ns' }, n });

async function collect(watch: Watch, count: number, timeoutMs = 15_000): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const timer = setTimeout(() => watch.stop(), timeoutMs);
  try {
    for await (const event of watch) {
      events.push(event);
      if (events.length === count) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return events;
}

describe('watch cache (etcd backend)', () => {
  it('three watchers are fed by one etcd watch', async () => {
    const { inner, store } = newCached('/fan-out');
    const before = inner.watchStreamsOpened;
    const start = await store.currentRevision();
    const watches = await Promise.all(
      [0, 1, 2].map(() => store.watch('/apps/things/', { recursive: true, revision: start })),
    );
    const reading = watches.map((watch) => collect(watch, 10));
    for (let i = 0; i < 10; i++) await store.create(`/apps/things/ns/t${i}`, item(`t${i}`));
    const results = await Promise.all(reading);
    for (const events of results) {
      assert.deepEqual(
        events.map((event) => event.object.metadata?.name),
        Array.from({ length: 10 }, (_, i) => `t${i}`),
      );
    }
    // The first watch started the cache (whose start may be after `start`, then served by etcd).
    const opened = inner.watchStreamsOpened - before;
    assert.ok(opened <= 2, `etcd watch streams opened: ${opened}`);
    const later = await Promise.all([0, 1, 2].map(() => store.watch('/apps/things/', { recursive: true })));
    const laterReading = later.map((watch) => collect(watch, 1));
    await store.create('/apps/things/ns/last', item('last'));
    for (const events of await Promise.all(laterReading)) assert.equal(events[0]?.object.metadata?.name, 'last');
    assert.equal(inner.watchStreamsOpened - before, opened, 'watches from now open no etcd watch');
    const [stats] = await store.stats();
    assert.equal(stats!.innerWatches, 1);
  });

  it('a current list after writes to other resources is consistent: from the cache where etcd\u2019s progress requests are safe, else from etcd', async () => {
    // A consistent read waits for the cache 30 s at most: that it does not wait for a notification
    // that never comes is told from that with room to spare.
    const { store } = newCached('/consistent', { consistentReadTimeoutMs: 30_000 });
    await store.create('/apps/things/ns/a', item('a'));
    assert.equal((await store.list('/apps/things/')).items.length, 1);
    assert.equal(store.listsFromCache, 1, 'the cache is current when its resource was the last written');
    await store.create('/core/others/ns/b', item('b'));
    const current = await store.currentRevision();
    const started = Date.now();
    const list = await store.list('/apps/things/');
    assert.equal(list.revision, current);
    assert.equal(list.items.length, 1);
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    const safe = progressRequestsExpected(await etcdVersion());
    assert.equal(store.listsFromStore, safe ? 0 : 1);
  });

  it('many replicas\u2019 caches, written concurrently while lists and watches start, never miss an event', async () => {
    // A list then a watch from its revision, as an informer does, while another client writes.
    const writer = newInner('/race');
    const caches = Array.from({ length: 4 }, () => newCached('/race').store);
    const writing = (async () => {
      for (let i = 0; i < 200; i += 20) {
        await Promise.all(Array.from({ length: 20 }, (_, j) => writer.create(`/apps/roles/r${i + j}`, item(`r${i + j}`))));
      }
    })();
    const seen = caches.map(async (store, index) => {
      await new Promise((resolve) => setTimeout(resolve, index * 15));
      await writer.create(`/core/noise/n${index}`, item(`n${index}`));
      const list = await store.list('/apps/roles/');
      const names = new Set(list.items.map((object) => object.metadata?.name));
      const watch = await store.watch('/apps/roles/', { recursive: true, revision: list.revision });
      await writing;
      const timer = setTimeout(() => watch.stop(), 5000);
      if (names.size < 200) {
        for await (const event of watch) {
          names.add(event.object.metadata?.name);
          if (names.size === 200) break;
        }
      }
      clearTimeout(timer);
      watch.stop();
      return names.size;
    });
    assert.deepEqual(await Promise.all(seen), [200, 200, 200, 200]);
  });

  it('the cache survives an etcd restart on one watch', async () => {
    const { inner, store } = newCached('/restart');
    const watch = await store.watch('/apps/things/', { recursive: true });
    const reading = collect(watch, 2, 30_000);
    await store.create('/apps/things/ns/before', item('before'));
    const before = inner.watchStreamsOpened;
    await etcd.kill();
    await etcd.restart();
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await store.create('/apps/things/ns/after', item('after'));
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const events = await reading;
    assert.deepEqual(
      events.map((event) => event.object.metadata?.name),
      ['before', 'after'],
    );
    assert.ok(inner.watchStreamsOpened > before, 'the etcd watch resumed on a new stream');
    const [stats] = await store.stats();
    assert.equal(stats!.rebuilds, 0);
    assert.deepEqual(
      (await store.list('/apps/things/')).items.map((object) => object.metadata?.name),
      ['after', 'before'],
    );
  });
});

describe('watch cache (etcd backend) with etcd\u2019s periodic progress notifications', () => {
  let notifying: EtcdProcess;
  before(async () => {
    notifying = await startEtcd({ progressNotifyIntervalMs: 200 });
  });
  after(async () => {
    await notifying.stop();
  });

  it('moves a quiet resource\u2019s watchers on to revisions written elsewhere (bookmarks from progress)', async () => {
    const inner = new EtcdStorage({
      hosts: [notifying.endpoint],
      prefix: '/progress',
      compactionIntervalMs: 0,
      onBackgroundError: (error) => assert.fail(`background error: ${String(error)}`),
    });
    const store = new CachedStorage(inner);
    try {
      const watch = await store.watch('/apps/quiet/', { recursive: true });
      const written = Number((await store.create('/core/busy/ns/x', item('x'))).metadata!.resourceVersion);
      assert.ok(watch.progressRevision!()! < written, 'the quiet resource has seen no event at the write');
      const deadline = Date.now() + 5000;
      while (watch.progressRevision!()! < written && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(watch.progressRevision!()! >= written, `progress stayed at ${watch.progressRevision!()} below ${written}`);
      watch.stop();
    } finally {
      await store.close();
    }
  });

  it('a restarted replica\u2019s new cache fills its window from etcd\u2019s history: a watch from before it started is served by the cache, or Gone before the history', async () => {
    const newStore = (): { inner: EtcdStorage; store: CachedStorage } => {
      const inner = new EtcdStorage({
        hosts: [notifying.endpoint],
        prefix: '/restart',
        compactionIntervalMs: 0,
        onBackgroundError: (error) => assert.fail(`background error: ${String(error)}`),
      });
      return { inner, store: new CachedStorage(inner, { historyRevisions: 15 }) };
    };
    const first = newStore();
    const revisions: number[] = [];
    for (let i = 0; i < 20; i++) revisions.push(Number((await first.store.create(`/apps/things/ns/t${i}`, item(`t${i}`))).metadata!.resourceVersion));
    await first.store.close();
    const { inner, store } = newStore();
    try {
      store.keep(['/apps/things/']);
      const before = Date.now();
      while (store.unsynced(['/apps/things/']).length > 0 && Date.now() - before < 5000) await new Promise((resolve) => setTimeout(resolve, 20));
      const opened = inner.watchStreamsOpened;
      // 15 revisions back from the list: from revisions[4] on (the window fills once etcd's
      // periodic progress notification says its watch has caught up).
      const watch = await store.watch('/apps/things/', { recursive: true, revision: revisions[10]! });
      assert.deepEqual((await collect(watch, 9)).map((event) => event.object.metadata?.name), Array.from({ length: 9 }, (_, i) => `t${i + 11}`));
      assert.equal(inner.watchStreamsOpened, opened, 'served by the cache: no etcd watch of its own');
      const [stats] = await store.stats();
      assert.equal(stats!.oldestRevision, revisions[19]! - 15);
      const old = await store.watch('/apps/things/', { recursive: true, revision: revisions[1]! });
      await assert.rejects(collect(old, 1), (error: Error) => /compacted/.test(error.message));
      assert.equal(inner.watchStreamsOpened, opened);
    } finally {
      await store.close();
    }
  });
});
