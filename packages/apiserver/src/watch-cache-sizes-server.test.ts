// A resource --watch-cache-sizes gives 0 is served by the store under the watch cache, as with
// --watch-cache=false for it alone: every read and watch, no cache started, readiness not waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CachedStorage, createStorage, type ListOptions, type ListResult, type Storage, type StoredObject } from '@plat/storage';
import { customResourceDefinitions } from '@plat/api';
import { startApiServer, type ApiTestServer } from './testing/index.js';
import { ListMemoryBudget, listCost } from '@plat/filters';
import type { WatchCacheSize } from './watch-cache-sizes.js';

const configmapsOff: WatchCacheSize[] = [{ resource: 'configmaps', group: '', size: 0 }];

const waitUntil = async (condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** The inner store's calls, by operation and key prefix (`get /core/configmaps/`). */
function countCalls(inner: Storage): Map<string, number> {
  const calls = new Map<string, number>();
  for (const operation of ['get', 'list', 'watch'] as const) {
    const original = inner[operation].bind(inner) as (key: string, options?: object) => unknown;
    (inner as unknown as Record<string, unknown>)[operation] = (key: string, options?: object) => {
      const prefix = key.split('/').slice(0, 3).join('/') + '/';
      calls.set(`${operation} ${prefix}`, (calls.get(`${operation} ${prefix}`) ?? 0) + 1);
      return original(key, options);
    };
  }
  return calls;
}

interface ObjectList {
  metadata: { resourceVersion: string; continue?: string };
  items: { metadata: { name: string } }[];
}

async function list(send: ApiTestServer['send'], path: string): Promise<ObjectList> {
  const response = await send('GET', path);
  assert.equal(response.status, 200, response.body);
  return JSON.parse(response.body) as ObjectList;
}

async function createThree(send: ApiTestServer['send'], resource: 'configmaps' | 'secrets'): Promise<string[]> {
  const revisions: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await send('POST', `/api/v1/namespaces/ns/${resource}`, { metadata: { name: `${resource}-${i}` } });
    assert.equal(created.status, 201, created.body);
    revisions.push((JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
  }
  return revisions;
}

// The cache made by the server (--watch-cache) and one given to it over a store.
for (const wiring of ['made by the server', 'given'] as const) {
  test(`configmaps#0 (cache ${wiring}): ConfigMaps are read from the store, a resourceVersion=0 list honouring limit and continue; Secrets from the cache, the limit ignored`, async (t) => {
    const inner = createStorage({ backend: 'memory' });
    const calls = countCalls(inner);
    const given = wiring === 'given' ? new CachedStorage(inner) : undefined;
    const { server, send, lines } = await startApiServer({
      storage: given ?? inner,
      ...(!given && { watchCache: true }),
      watchCacheSizes: [...configmapsOff, { resource: 'secrets', group: '', size: 100 }],
    });
    t.after(() => server.shutdown());
    assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
    await createThree(send, 'configmaps');
    await createThree(send, 'secrets');

    const first = await list(send, '/api/v1/namespaces/ns/configmaps?resourceVersion=0&limit=1');
    assert.deepEqual(first.items.map((item) => item.metadata.name), ['configmaps-0']);
    assert.ok(first.metadata.continue, 'a continue token from the store');
    const rest = await list(send, `/api/v1/namespaces/ns/configmaps?limit=5&continue=${encodeURIComponent(first.metadata.continue)}`);
    assert.deepEqual(rest.items.map((item) => item.metadata.name), ['configmaps-1', 'configmaps-2']);
    assert.equal(rest.metadata.continue, undefined);

    // The cache answers a list of any state whole, as upstream's does.
    const secrets = await list(send, '/api/v1/namespaces/ns/secrets?resourceVersion=0&limit=1');
    assert.deepEqual(secrets.items.map((item) => item.metadata.name), ['secrets-0', 'secrets-1', 'secrets-2']);
    assert.equal(secrets.metadata.continue, undefined);

    // Gets of any state: the store's for ConfigMaps, the cache's for Secrets.
    const storeGets = (prefix: string): number => calls.get(`get ${prefix}`) ?? 0;
    const [configmapGets, secretGets] = [storeGets('/core/configmaps/'), storeGets('/core/secrets/')];
    assert.equal((await send('GET', '/api/v1/namespaces/ns/configmaps/configmaps-0?resourceVersion=0')).status, 200);
    assert.equal((await send('GET', '/api/v1/namespaces/ns/secrets/secrets-0?resourceVersion=0')).status, 200);
    assert.equal(storeGets('/core/configmaps/'), configmapGets + 1);
    assert.equal(storeGets('/core/secrets/'), secretGets);

    if (given) {
      const cached = (await given.stats()).map((stats) => stats.prefix);
      assert.ok(cached.includes('/core/secrets/'), cached.join(' '));
      assert.ok(!cached.includes('/core/configmaps/'), `no cache of ConfigMaps: ${cached.join(' ')}`);
    }
    // Upstream's storage factory's words for a size that is not 0.
    assert.ok(lines.some((line) => line.msg === 'Dropping watch-cache-size for secrets - watchCache size is now dynamic'));
  });
}

test('configmaps#0: a watch of ConfigMaps is the store\'s (from a revision older than the caches\' windows; 410 once compacted), one of Secrets the cache\'s', async (t) => {
  const inner = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  const calls = countCalls(inner);
  // Windows of one event: a watch from the first write of three is older than a cache's.
  const { server, send } = await startApiServer({ storage: new CachedStorage(inner, { maxHistoryEvents: 1 }), watchCacheSizes: configmapsOff });
  t.after(() => server.shutdown());
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
  const configmaps = await createThree(send, 'configmaps');
  const secrets = await createThree(send, 'secrets');
  const watch = async (resource: string, from: string): Promise<{ type: string; object: { code?: number; message?: string; metadata?: { name: string } } }[]> => {
    const response = await send('GET', `/api/v1/namespaces/ns/${resource}?watch=1&resourceVersion=${from}&timeoutSeconds=1`);
    assert.equal(response.status, 200, response.body);
    return response.body.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
  };

  const storeWatches = calls.get('watch /core/configmaps/') ?? 0;
  const fromStore = await watch('configmaps', configmaps[0]!);
  assert.deepEqual(fromStore.map((event) => `${event.type} ${event.object.metadata?.name}`), ['ADDED configmaps-1', 'ADDED configmaps-2']);
  assert.equal(calls.get('watch /core/configmaps/'), storeWatches + 1);

  const fromCache = await watch('secrets', secrets[0]!);
  assert.deepEqual(fromCache.map((event) => [event.type, event.object.code]), [['ERROR', 410]]);

  await inner.compact(Number(configmaps[2]));
  const compacted = await watch('configmaps', configmaps[0]!);
  assert.deepEqual(compacted.map((event) => [event.type, event.object.code]), [['ERROR', 410]]);
  assert.match(compacted[0]!.object.message!, /^too old resource version: /);
});

test('configmaps#0: /readyz does not wait for a ConfigMaps cache, and none is started', async (t) => {
  const inner = createStorage({ backend: 'memory' });
  // Whatever lists ConfigMaps hangs until released: a cache of them could never be ready.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  t.after(() => release());
  const innerList = inner.list.bind(inner);
  inner.list = (async <T extends StoredObject>(prefix: string, options?: ListOptions): Promise<ListResult<T>> => {
    if (prefix === '/core/configmaps/') await released;
    return innerList<T>(prefix, options);
  }) as typeof inner.list;
  const storage = new CachedStorage(inner);
  const { server, get } = await startApiServer({ storage, watchCacheSizes: configmapsOff });
  t.after(() => server.shutdown());
  await waitUntil(async () => (await get('/readyz')).status === 200);
  assert.match((await get('/readyz?verbose')).body, /\[\+\]cache-ready ok\n/);
  const cached = (await storage.stats()).map((stats) => stats.prefix);
  assert.ok(cached.includes('/core/secrets/') && !cached.includes('/core/configmaps/'), cached.join(' '));
});

test('configmaps#0: a list of ConfigMaps is budgeted as read from the store, one of Secrets as from the cache', async (t) => {
  class RecordingBudget extends ListMemoryBudget {
    readonly reservations: number[] = [];
    override reserve(bytes: number): (() => void) | undefined {
      this.reservations.push(bytes);
      return super.reserve(bytes);
    }
  }
  const budget = new RecordingBudget();
  const { server, send } = await startApiServer(
    { storage: new CachedStorage(createStorage({ backend: 'memory' })), watchCacheSizes: configmapsOff },
    { listMemoryBudget: budget, objectCountIntervalMs: 20 },
  );
  t.after(() => server.shutdown());
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
  await createThree(send, 'configmaps');
  await createThree(send, 'secrets');
  // What a list of the three objects reserved, and what it reserves read from the store or not (at
  // the bytes per object learned before it).
  const reserved = async (resource: string): Promise<{ reserved: number; fromStore: number; fromCache: number }> => {
    const cost = (fromStore: boolean): number => listCost({ items: 3, bytesPerItem: budget.averageItemBytes(`/core/${resource}/`), streamed: false, fromStore });
    const [fromStore, fromCache] = [cost(true), cost(false)];
    budget.reservations.length = 0;
    await list(send, `/api/v1/namespaces/ns/${resource}?resourceVersion=0`);
    return { reserved: budget.reservations[0]!, fromStore, fromCache };
  };
  // The ConfigMaps' count comes from the store's counting (every 20 ms here), the Secrets' from their cache.
  await waitUntil(async () => {
    const configmaps = await reserved('configmaps');
    return configmaps.reserved === configmaps.fromStore;
  });
  // (The first list of Secrets learns their size from a sample of the cache's objects; the second's estimate is known.)
  await reserved('secrets');
  const secrets = await reserved('secrets');
  assert.equal(secrets.reserved, secrets.fromCache);
  assert.notEqual(secrets.fromCache, secrets.fromStore);
});

test('events#0 alone: core Events are read from the store, events.plat.io Events from the cache both share', async (t) => {
  const storage = new CachedStorage(createStorage({ backend: 'memory' }));
  const { server, send } = await startApiServer({ storage, watchCacheSizes: [{ resource: 'events', group: '', size: 0 }] });
  t.after(() => server.shutdown());
  assert.equal((await send('POST', '/api/v1/namespaces', { metadata: { name: 'ns' } })).status, 201);
  for (let i = 0; i < 2; i++) {
    const event = { metadata: { name: `e${i}` }, involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p' }, reason: 'Test', message: 'm', type: 'Normal' };
    assert.equal((await send('POST', '/api/v1/namespaces/ns/events', event)).status, 201);
  }
  const core = await list(send, '/api/v1/namespaces/ns/events?resourceVersion=0&limit=1');
  assert.equal(core.items.length, 1);
  assert.ok(core.metadata.continue);
  const grouped = await list(send, '/apis/events.plat.io/v1/namespaces/ns/events?resourceVersion=0&limit=1');
  assert.equal(grouped.items.length, 2);
  assert.ok((await storage.stats()).some((stats) => stats.prefix === '/core/events/'));
});

test('a custom resource given 0 is served without a cache (as kube-apiserver 1.28 does), another one with', async (t) => {
  const storage = new CachedStorage(createStorage({ backend: 'memory' }));
  const { server, send } = await startApiServer({ storage, watchCacheSizes: [{ resource: 'widgets', group: 'example.com', size: 0 }] }, { customResources: customResourceDefinitions });
  t.after(() => server.shutdown());
  const crd = (plural: string, kind: string): object => ({
    apiVersion: 'apiextensions.plat.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Cluster',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  for (const [plural, kind] of [['widgets', 'Widget'], ['gadgets', 'Gadget']] as const) {
    assert.equal((await send('POST', '/apis/apiextensions.plat.io/v1/customresourcedefinitions', crd(plural, kind))).status, 201);
    await waitUntil(async () => {
      for (let i = 0; i < 2; i++) {
        const created = await send('POST', `/apis/example.com/v1/${plural}`, { apiVersion: 'example.com/v1', kind, metadata: { name: `${plural}-${i}` } });
        if (created.status !== 201 && created.status !== 409) return false;
      }
      return true;
    });
  }
  await waitUntil(async () => (await storage.stats()).some((stats) => stats.prefix === '/example.com/gadgets/' && stats.ready));
  assert.ok(!(await storage.stats()).some((stats) => stats.prefix === '/example.com/widgets/'));
  const widgets = await list(send, '/apis/example.com/v1/widgets?resourceVersion=0&limit=1');
  assert.equal(widgets.items.length, 1);
  assert.ok(widgets.metadata.continue);
  assert.equal((await list(send, '/apis/example.com/v1/gadgets?resourceVersion=0&limit=1')).items.length, 2);
});
