import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { CachedStorage, createStorage } from '@plat/storage';
import type { KubeObject, ResourceDefinition } from './definition.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';
import { startWatch, type ApiWatchEvent } from './watch.js';

interface Widget extends KubeObject {
  size?: number;
}

const widgets: ResourceDefinition<Widget> = {
  group: 'things.{domain}',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singularName: 'widget',
  namespaced: false,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'delete', 'deletecollection'],
  schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, size: { type: 'integer' } } },
  strategy: {
    default: (object) => {
      object.size ??= 1;
    },
    validate: () => [],
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
};

/** A kind whose strategy keeps metadata.generation, as upstream's workloads. */
const trackedWidgets: ResourceDefinition<Widget> = { ...widgets, strategy: { ...widgets.strategy, tracksGeneration: true } };

function newStore(now = () => new Date('2026-01-02T03:04:05.678Z'), definition = widgets): ResourceStore<Widget> {
  const storage = createStorage({ backend: 'memory', compactionIntervalMs: 0 });
  return new ResourceStore(resolveResource(definition, 'example.com'), { storage, context: { domain: 'example.com' }, now });
}

async function take(iterable: AsyncIterable<ApiWatchEvent>, count: number): Promise<ApiWatchEvent[]> {
  const events: ApiWatchEvent[] = [];
  for await (const event of iterable) {
    events.push(event);
    if (events.length === count) break;
  }
  return events;
}

test('store: the group resolves the domain, objects get type meta, defaults and system metadata', async () => {
  const store = newStore();
  const created = await store.create('', { metadata: { name: 'a', uid: 'client-set', generation: 9 } });
  assert.equal(created.apiVersion, 'things.example.com/v1');
  assert.equal(created.kind, 'Widget');
  assert.equal(created.size, 1);
  assert.notEqual(created.metadata.uid, 'client-set');
  assert.equal(created.metadata.creationTimestamp, '2026-01-02T03:04:05Z');
});

test('store: a kind that tracks its generation starts at 1 and grows with a change outside metadata and status only', async () => {
  const store = newStore(undefined, trackedWidgets);
  const created = await store.create('', { metadata: { name: 'a', generation: 9 }, size: 1 });
  assert.equal(created.metadata.generation, 1);
  const labelled = await store.update('', 'a', { ...created, metadata: { ...created.metadata, labels: { x: 'y' } } });
  assert.equal(labelled.object.metadata.generation, 1);
  // The same content with its keys in another order is no change.
  const { size, apiVersion, kind, metadata } = labelled.object;
  const reordered = await store.update('', 'a', { size, metadata, kind, apiVersion } as Widget);
  assert.equal(reordered.object.metadata.generation, 1);
  const resized = await store.update('', 'a', { ...reordered.object, size: 2 });
  assert.equal(resized.object.metadata.generation, 2);
});

test("store: any other kind has no generation of its own: the client's is kept, never lowered", async () => {
  const store = newStore();
  const plain = await store.create('', { metadata: { name: 'plain' } });
  assert.equal(plain.metadata.generation, undefined);
  const resized = await store.update('', 'plain', { ...plain, size: 5 });
  assert.equal(resized.object.metadata.generation, undefined);

  const given = await store.create('', { metadata: { name: 'given', generation: 9 } });
  assert.equal(given.metadata.generation, 9);
  const raised = await store.update('', 'given', { ...given, metadata: { ...given.metadata, generation: 12 } });
  assert.equal(raised.object.metadata.generation, 12);
  await assert.rejects(
    store.update('', 'given', { ...raised.object, metadata: { ...raised.object.metadata, generation: 3 } }),
    (error: unknown) => isStatusError(error) && error.code === 422 && /metadata.generation: Invalid value: 3: must not be decremented/.test(error.message),
  );
  await assert.rejects(
    store.create('', { metadata: { name: 'negative', generation: -1 } }),
    (error: unknown) => isStatusError(error) && error.code === 422 && /metadata.generation/.test(error.message),
  );
});

test('store: the beginning of deletion is a new generation where there is one', async () => {
  const store = newStore();
  await store.create('', { metadata: { name: 'kept', generation: 4, finalizers: ['example.com/hold'] } });
  await store.create('', { metadata: { name: 'none', finalizers: ['example.com/hold'] } });
  assert.equal((await store.delete('', 'kept')).object.metadata.generation, 5);
  // Deleting again does not begin deletion again.
  assert.equal((await store.delete('', 'kept')).object.metadata.generation, 5);
  assert.equal((await store.delete('', 'none')).object.metadata.generation, undefined);
});

test('store: a dry-run create of a name that is taken is refused as the real one would be', async () => {
  const store = newStore();
  await store.create('', { metadata: { name: 'taken' } });
  await assert.rejects(
    store.create('', { metadata: { name: 'taken' } }, { dryRun: true }),
    (error: unknown) => isStatusError(error) && error.code === 409 && error.status.reason === 'AlreadyExists',
  );
  assert.equal((await store.create('', { metadata: { name: 'free' } }, { dryRun: true })).metadata.name, 'free');
  await assert.rejects(store.get('', 'free'), (error: unknown) => isStatusError(error) && error.code === 404);
});

test('store: a resourceVersion on create is refused', async () => {
  await assert.rejects(newStore().create('', { metadata: { name: 'a', resourceVersion: '5' } }), (error: unknown) => isStatusError(error) && error.code === 400);
});

test('store: generated names are unique', async () => {
  const store = newStore();
  const names = new Set<string>();
  for (let i = 0; i < 200; i++) names.add((await store.create('', { metadata: { generateName: 'w-' } })).metadata.name!);
  assert.equal(names.size, 200);
});

test('watch: periodic bookmarks carry the revision reached', async () => {
  const store = newStore();
  const created = await store.create('', { metadata: { name: 'a' } });
  const watch = await startWatch(store, '', { resourceVersion: created.metadata.resourceVersion!, allowWatchBookmarks: true }, { bookmarkIntervalMs: 20 });
  // The bookmark timer does not hold the process open (a server's sockets do): this test must.
  const keepAlive = setInterval(() => {}, 1000);
  const [bookmark] = await take(watch, 1);
  clearInterval(keepAlive);
  watch.stop();
  assert.equal(bookmark!.type, 'BOOKMARK');
  assert.deepEqual(bookmark!.object, {
    kind: 'Widget',
    apiVersion: 'things.example.com/v1',
    metadata: { resourceVersion: created.metadata.resourceVersion },
  });
});

test('watch: the last bookmark goes out 2 s before the server ends the watch, as upstream\u2019s watch cache sends it', async () => {
  // Each watch is read until the server would end it (its timeout), or, without one, until the
  // bookmarks expected have come (10 s at most). Lower bounds only: timers run late on a busy
  // machine (early by a millisecond at most).
  const cases = [
    { name: 'timeout 2.4 s: one bookmark, at 0.4 s', timeoutMs: 2400, interval: 60_000, expected: [400] },
    { name: 'timeout 1.5 s: no time for one', timeoutMs: 1500, interval: 60_000, expected: [] },
    { name: 'no timeout: every interval', timeoutMs: undefined, interval: 300, expected: [300, 600] },
  ];
  const store = newStore();
  const created = await store.create('', { metadata: { name: 'a' } });
  await Promise.all(
    cases.map(async ({ name, timeoutMs, interval, expected }) => {
      const started = Date.now();
      const watch = await startWatch(
        store,
        '',
        { resourceVersion: created.metadata.resourceVersion!, allowWatchBookmarks: true },
        { bookmarkIntervalMs: interval, ...(timeoutMs !== undefined && { timeoutMs }) },
      );
      const arrivals: number[] = [];
      const ending = setTimeout(() => watch.stop(), timeoutMs ?? 10_000);
      for await (const event of watch) {
        assert.equal(event.type, 'BOOKMARK', name);
        arrivals.push(Date.now() - started);
        if (timeoutMs === undefined && arrivals.length === expected.length) break;
      }
      clearTimeout(ending);
      watch.stop();
      assert.equal(arrivals.length, expected.length, `${name}: bookmarks at ${arrivals.join(', ')} ms`);
      arrivals.forEach((at, i) => assert.ok(at >= expected[i]! - 5, `${name}: bookmarks at ${arrivals.join(', ')} ms`));
    }),
  );
});

test('watch: the bookmark before the end goes out once, even when its timer fires before the clock reaches its time', async (t) => {
  const store = newStore();
  const created = await store.create('', { metadata: { name: 'a' } });
  // libuv may fire a timer a millisecond before Date.now() reaches its time; a frozen clock is the
  // extreme of that: every timer fires "early".
  const frozen = Date.now();
  t.mock.method(Date, 'now', () => frozen);
  const watch = await startWatch(store, '', { resourceVersion: created.metadata.resourceVersion!, allowWatchBookmarks: true }, { bookmarkIntervalMs: 60_000, timeoutMs: 2100 });
  const ending = setTimeout(() => watch.stop(), 600);
  const types: string[] = [];
  for await (const event of watch) types.push(event.type);
  clearTimeout(ending);
  assert.deepEqual(types, ['BOOKMARK']);
});

test('watch: with a watch cache, bookmarks follow the progress of the store past the last event', async () => {
  // Widgets sit in a watch cache over the embedded store, which reports progress when asked.
  const storage = new CachedStorage(createStorage({ backend: 'memory', compactionIntervalMs: 0 }));
  const store = new ResourceStore(resolveResource(widgets, 'example.com'), { storage, context: { domain: 'example.com' } });
  const created = await store.create('', { metadata: { name: 'a' } });
  const watch = await startWatch(store, '', { resourceVersion: created.metadata.resourceVersion!, allowWatchBookmarks: true }, { bookmarkIntervalMs: 30 });
  const keepAlive = setInterval(() => {}, 1000);
  try {
    // Writes elsewhere in the store: no event for this watch, but the revision moves on.
    let elsewhere = 0;
    for (let i = 0; i < 3; i++) elsewhere = Number((await storage.create<KubeObject>(`/other/things/x${i}`, { metadata: { name: `x${i}` } })).metadata.resourceVersion);
    let reached = 0;
    let bookmarks = 0;
    for await (const event of watch) {
      assert.equal(event.type, 'BOOKMARK');
      reached = Number((event.object as KubeObject).metadata.resourceVersion);
      if (reached >= elsewhere || ++bookmarks === 100) break;
    }
    assert.equal(reached, elsewhere);
  } finally {
    clearInterval(keepAlive);
    watch.stop();
    await storage.close();
  }
});

test('watch: a run of the watch cache reaches a direct taker, one array for the watchers without a selector', async () => {
  const storage = new CachedStorage(createStorage({ backend: 'memory', compactionIntervalMs: 0 }));
  const store = new ResourceStore(resolveResource(widgets, 'example.com'), { storage, context: { domain: 'example.com' } });
  try {
    const start = await store.create('', { metadata: { name: 'before', labels: { app: 'x' } } });
    const watches = await Promise.all(
      [undefined, undefined, 'app=x'].map((labelSelector) =>
        startWatch(store, '', { resourceVersion: start.metadata.resourceVersion!, ...(labelSelector && { labelSelector }) }, { bookmarkIntervalMs: 60_000 }),
      ),
    );
    const taken: (readonly ApiWatchEvent[])[][] = watches.map(() => []);
    const iterated: ApiWatchEvent[][][] = watches.map(() => []);
    const reading = watches.map(async (watch, i) => {
      for await (const run of watch.batches((run) => taken[i]!.push(run) > 0)) iterated[i]!.push(run);
    });
    await new Promise((resolve) => setImmediate(resolve));
    await store.create('', { metadata: { name: 'a', labels: { app: 'x' } } });
    while (taken.some((runs) => runs.length === 0)) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const watch of watches) watch.stop();
    await Promise.all(reading);
    assert.deepEqual(iterated, [[], [], []], 'nothing went through the iterations');
    const [plain, alike, selected] = taken.map((runs) => runs[0]!);
    assert.deepEqual(plain!.map((event) => [event.type, (event.object as KubeObject).metadata.name]), [['ADDED', 'a']]);
    assert.equal(plain, alike, 'the watchers without a selector were offered one array');
    assert.notEqual(plain, selected, 'a selector makes its own');
    assert.deepEqual(selected, plain);
  } finally {
    await storage.close();
  }
});

test('watch: a client too far behind is closed rather than buffered without bound', async () => {
  const store = newStore();
  const start = await store.storage.currentRevision();
  const watch = await startWatch(store, '', { resourceVersion: String(start) }, { bookmarkIntervalMs: 60_000, maxBufferedEvents: 5 });
  for (let i = 0; i < 20; i++) await store.create('', { metadata: { name: `w${i}` } });
  const events: ApiWatchEvent[] = [];
  for await (const event of watch) events.push(event);
  assert.equal(events.length, 5, 'the stream ended after the buffered events');
});

test('store: a patch too large to store with its managedFields is stored without them; apply is refused (413)', async () => {
  const store = newStore();
  const created = await store.create('', { metadata: { name: 'a' } }, { manager: 'creator' });
  assert.ok(created.metadata.managedFields?.length);
  // 70,000 labels: about 0.9 MB of object, and as much again in managedFields, which list every
  // key; together over the 1.5 MiB etcd (and the embedded backend) takes in one write.
  const labels = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, '']));
  for (const type of ['merge', 'strategic'] as const) {
    const { object } = await store.patch('', 'a', { type, patch: { metadata: { labels } }, manager: 'labeller' });
    assert.equal(Object.keys(object.metadata.labels ?? {}).length, 70_000, type);
    assert.equal(object.metadata.managedFields, undefined, type);
    const stored = await store.get('', 'a');
    assert.equal(stored.metadata.managedFields, undefined, type);
    await store.update('', 'a', { ...stored, metadata: { ...stored.metadata, labels: {} } }, { manager: 'clearer' });
  }
  await assert.rejects(
    store.patch('', 'a', { type: 'apply', patch: { apiVersion: 'things.example.com/v1', kind: 'Widget', metadata: { name: 'a', labels } }, manager: 'applier', force: true }),
    (error: unknown) => isStatusError(error) && error.code === 413 && error.status.reason === 'RequestEntityTooLarge',
  );
  assert.deepEqual((await store.get('', 'a')).metadata.labels ?? {}, {});
});

test("store: a kind's deletion finalizers are added by the first delete, which then only marks the object", async () => {
  const cleaned: ResourceDefinition<Widget> = {
    ...widgets,
    strategy: {
      ...widgets.strategy,
      deletionFinalizers: (context) => [`cleanup.${context.domain}`],
      prepareForDeletion: (object) => {
        object.size = -1;
      },
    },
  };
  const store = newStore(undefined, cleaned);
  await store.create('', { metadata: { name: 'a', finalizers: ['other'] } });
  const first = await store.delete('', 'a');
  assert.equal(first.deleted, false);
  assert.deepEqual(first.object.metadata.finalizers, ['other', 'cleanup.example.com']);
  assert.ok(first.object.metadata.deletionTimestamp);
  assert.equal(first.object.size, -1);
  // Once whoever cleans up has removed its finalizer, it is not added again.
  await store.update('', 'a', { ...first.object, metadata: { ...first.object.metadata, finalizers: ['other'] } });
  const second = await store.delete('', 'a');
  assert.deepEqual(second.object.metadata.finalizers, ['other']);
  const done = await store.update('', 'a', { ...second.object, metadata: { ...second.object.metadata, finalizers: [] } });
  assert.equal(done.object.metadata.finalizers, undefined);
  await assert.rejects(store.get('', 'a'), (error: unknown) => isStatusError(error) && error.code === 404);
});
