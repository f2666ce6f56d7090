// A custom resource served in a version other than its storage version, through the converter seam:
// a list filters what it has converted (a chunk at a time, one converter call each) and pages
// exactly as the storage's own filtered lists do; a watch converts each run once per version and
// keeps the runs' order; a failed conversion is a 500.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { CachedStorage, createStorage, type ListResult, type Storage } from '@plat/storage';
import { noneConverter, versionCheckedConverter, type Converter } from './conversion.js';
import type { KubeObject, ResourceDefinition } from './definition.js';
import { EXPIRED_LIST_MESSAGE, INCONSISTENT_CONTINUE_MESSAGE } from './errors.js';
import { buildPredicate } from './predicate.js';
import type { ListQueryWithSelectors, ObjectList } from './requests.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';
import { startWatch, type ApiWatch, type ApiWatchEvent } from './watch.js';

/** A converter that counts its calls (and what they carried) and can be made to wait or fail. */
class CountingConverter implements Converter {
  readonly calls: { to: string; names: string[] }[] = [];
  /** Runs before a call converts; may hold it (return a promise) or fail it (throw). */
  before: ((objects: readonly KubeObject[], to: string) => Promise<void> | void) | undefined;
  private readonly inner = versionCheckedConverter(['example.com/v1', 'example.com/v2'], noneConverter);

  async convert(objects: readonly KubeObject[], to: string): Promise<KubeObject[]> {
    this.calls.push({ to, names: objects.map((object) => `${object.metadata.namespace}/${object.metadata.name}`) });
    await this.before?.(objects, to);
    return this.inner.convert(objects, to);
  }

  callsTo(to: string): { to: string; names: string[] }[] {
    return this.calls.filter((call) => call.to === to);
  }
}

const gadgets = (version: string, converter: Converter): ResourceDefinition => ({
  group: 'example.com',
  version,
  kind: 'Gadget',
  resource: 'gadgets',
  singularName: 'gadget',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: { type: 'object' } } },
  strategy: { validate: () => [], validateUpdate: () => [] },
  allowCreateOnUpdate: false,
  unstructured: { storageVersion: 'v1', converter, prune: () => [], default: () => false },
});

interface Setup {
  /** The storage version's store and the other version's. */
  v1: ResourceStore;
  v2: ResourceStore;
  storage: Storage;
  converter: CountingConverter;
  /** Lists the storage has been asked for since the last reset. */
  reads: { count: number };
}

function setUp(storage: Storage): Setup {
  const converter = new CountingConverter();
  const store = (version: string) => new ResourceStore(resolveResource(gadgets(version, converter), 'plat.io'), { storage, context: { domain: 'plat.io' } });
  const reads = { count: 0 };
  const list = storage.list.bind(storage);
  storage.list = ((prefix, options) => {
    reads.count++;
    return list(prefix, options);
  }) as Storage['list'];
  return { v1: store('v1'), v2: store('v2'), storage, converter, reads };
}

const memory = (): Storage => createStorage({ backend: 'memory', compactionIntervalMs: 0 });

/**
 * Gadgets g00..g11 in ns1 and ns2, written through both versions: app=red on every third
 * (g00, g03, g06, g09), tier=front on the first six.
 */
async function fill({ v1, v2 }: Setup): Promise<void> {
  for (const namespace of ['ns1', 'ns2']) {
    for (let i = 0; i < 12; i++) {
      const labels = { app: i % 3 === 0 ? 'red' : 'blue', tier: i < 6 ? 'front' : 'back' };
      await (i % 2 ? v1 : v2).create(namespace, { metadata: { name: `g${String(i).padStart(2, '0')}`, labels } });
    }
  }
}

const names = (list: ObjectList<KubeObject>): string[] => list.items.map((item) => `${item.metadata.namespace}/${item.metadata.name}`);

/** Every page of a list, until its last. */
async function pages(list: (continueToken?: string) => Promise<ObjectList<KubeObject>>): Promise<ObjectList<KubeObject>[]> {
  const all: ObjectList<KubeObject>[] = [];
  let token: string | undefined;
  do {
    const page = await list(token);
    all.push(page);
    token = page.metadata.continue;
  } while (token);
  return all;
}

describe('store: a version other than the storage version, listed with selectors and pages', () => {
  const selectors: ListQueryWithSelectors[] = [
    {},
    { labelSelector: 'app=red' },
    { labelSelector: 'app!=red,tier=back' },
    { labelSelector: 'app=none' },
    { fieldSelector: 'metadata.name=g04' },
    { fieldSelector: 'metadata.namespace=ns2' },
    { labelSelector: 'app=red', fieldSelector: 'metadata.namespace=ns1' },
  ];
  for (const namespace of ['', 'ns1']) {
    for (const selector of selectors) {
      for (const limit of [1, 2, 5, 0]) {
        it(`pages as the storage's own filtered list: namespace "${namespace}", ${JSON.stringify(selector)}, limit ${limit}`, async () => {
          const setup = setUp(memory());
          await fill(setup);
          const { v2, storage } = setup;
          const served = await pages((token) => v2.list(namespace, { ...selector, ...(limit && { limit }), ...(token && { continue: token }) }));
          // The storage filtering its stored objects itself: labels and these fields are the same in
          // both versions, so its pages are what the converted version's must be.
          const filter = buildPredicate(v2.resource, selector.labelSelector, selector.fieldSelector).filter;
          const prefix = v2.resource.prefix(namespace);
          const stored = await pages(async (token) => {
            const result: ListResult = await storage.list(prefix, { limit, ...(token && { continue: token }), ...(filter && { filter: filter as (object: object) => boolean }) });
            return {
              apiVersion: '',
              kind: '',
              metadata: {
                resourceVersion: String(result.revision),
                ...(result.continue && { continue: result.continue }),
                ...(result.remainingItemCount !== undefined && { remainingItemCount: result.remainingItemCount }),
              },
              items: result.items as KubeObject[],
            };
          });
          assert.deepEqual(served.map(names), stored.map(names));
          assert.deepEqual(
            served.map((page) => page.metadata),
            stored.map((page) => page.metadata),
            'the same continue tokens, revision and remainingItemCount',
          );
          for (const page of served) {
            assert.equal(page.apiVersion, 'example.com/v2');
            for (const item of page.items) assert.equal(item.apiVersion, 'example.com/v2');
          }
        });
      }
    }
  }

  it('tops a page the filter thins out up with further chunks, each converted in one call', async () => {
    const setup = setUp(memory());
    await fill(setup);
    const { v2, converter, reads } = setup;
    converter.calls.length = 0;
    reads.count = 0;
    const page = await v2.list('', { labelSelector: 'app=red', limit: 3 });
    assert.deepEqual(names(page), ['ns1/g00', 'ns1/g03', 'ns1/g06']);
    assert.ok(page.metadata.continue);
    assert.equal(page.metadata.remainingItemCount, undefined, 'a filtered page gives none');
    // A chunk of 3 holds one match; the next, of 6, the two more.
    assert.equal(reads.count, 2);
    assert.deepEqual(converter.callsTo('example.com/v2').map((call) => call.names.length), [3, 6]);
    assert.equal(converter.calls.length, 2);
    const rest = await v2.list('', { labelSelector: 'app=red', limit: 3, continue: page.metadata.continue! });
    assert.deepEqual(names(rest), ['ns1/g09', 'ns2/g00', 'ns2/g03']);
  });

  it('converts an unfiltered page in one call, and keeps its remainingItemCount', async () => {
    const setup = setUp(memory());
    await fill(setup);
    const { v2, converter, reads } = setup;
    converter.calls.length = 0;
    reads.count = 0;
    const page = await v2.list('', { limit: 10 });
    assert.equal(page.items.length, 10);
    assert.equal(page.metadata.remainingItemCount, 14);
    assert.equal(reads.count, 1);
    assert.deepEqual(converter.calls.map((call) => [call.to, call.names.length]), [['example.com/v2', 10]]);
  });

  it('from the watch cache: a whole list converted in one call, each object once, then served as made', async () => {
    const setup = setUp(new CachedStorage(memory()));
    try {
      await fill(setup);
      const { v2, converter } = setup;
      // The cache has everything once the storage version lists it (which converts to v1 only).
      await setup.v1.list('', { resourceVersion: String(await setup.storage.currentRevision()), resourceVersionMatch: 'NotOlderThan' });
      converter.calls.length = 0;
      const first = await v2.list('', { resourceVersion: '0', labelSelector: 'tier=front' });
      assert.equal(first.items.length, 12);
      assert.deepEqual(converter.calls.map((call) => [call.to, call.names.length]), [['example.com/v2', 24]]);
      // A list of any state is whole from the cache, its limit ignored, filtered as it was.
      const second = await v2.list('', { resourceVersion: '0', labelSelector: 'tier=front', limit: 2 });
      assert.deepEqual(names(second), names(first));
      assert.equal(second.metadata.continue, undefined);
      assert.equal(converter.calls.length, 1, 'each stored object is converted once for this version');
      for (let i = 0; i < first.items.length; i++) assert.equal(second.items[i], first.items[i], 'the same served objects, list after list');
      // The storage version's own are the cache's objects, shared as they are.
      const own = await setup.v1.list('ns1', { resourceVersion: '0', fieldSelector: 'metadata.name=g00' });
      const cached = await setup.storage.get(setup.v1.resource.key('ns1', 'g00'), { notOlderThan: 0, readOnly: true });
      assert.equal(own.items[0], cached);
    } finally {
      await setup.storage.close();
    }
  });

  it('a continued page whose revision is compacted while it tops up offers its own start again, at the latest revision', async () => {
    const setup = setUp(memory());
    await fill(setup);
    const { v1, v2, storage, converter } = setup;
    const first = await v2.list('', { labelSelector: 'app=red', limit: 1 });
    assert.deepEqual(names(first), ['ns1/g00']);
    // While the first chunk of the next page converts, a write, and history compacted past the page's revision.
    converter.before = async (_objects, to) => {
      if (to !== 'example.com/v2') return;
      converter.before = undefined;
      await v1.create('ns1', { metadata: { name: 'g04a', labels: { app: 'red' } } });
      await storage.compact(await storage.currentRevision());
    };
    const error = await v2.list('', { labelSelector: 'app=red', limit: 2, continue: first.metadata.continue! }).then(
      () => assert.fail('expected 410'),
      (error: unknown) => error,
    );
    assert.ok(isStatusError(error), String(error));
    assert.deepEqual([error.status.code, error.status.message], [410, INCONSISTENT_CONTINUE_MESSAGE]);
    const resumed = await v2.list('', { labelSelector: 'app=red', limit: 2, continue: error.status.metadata.continue! });
    assert.deepEqual(names(resumed), ['ns1/g03', 'ns1/g04a'], 'from after the first page, at the latest revision');
    // Without a continue token of its own, the list is simply expired.
    converter.before = async (_objects, to) => {
      if (to !== 'example.com/v2') return;
      converter.before = undefined;
      await v1.create('ns1', { metadata: { name: 'g04b' } });
      await storage.compact(await storage.currentRevision());
    };
    const expired = await v2.list('', { labelSelector: 'app=red,tier=back', limit: 1 }).then(
      () => assert.fail('expected 410'),
      (error: unknown) => error,
    );
    assert.ok(isStatusError(expired), String(expired));
    assert.deepEqual([expired.status.code, expired.status.message], [410, EXPIRED_LIST_MESSAGE]);
  });

  it('a conversion that fails fails the read, as upstream\u2019s 500', async () => {
    const setup = setUp(memory());
    await fill(setup);
    setup.converter.before = () => {
      throw new Error('conversion webhook for example.com/v2, Kind=Gadget failed: boom');
    };
    await assert.rejects(setup.v2.list('', { labelSelector: 'app=red', limit: 2 }), { message: 'conversion webhook for example.com/v2, Kind=Gadget failed: boom' });
    await assert.rejects(setup.v2.get('ns1', 'g00'), { message: /failed: boom/ });
  });
});

/** The next `count` events of a watch. */
async function take(watch: ApiWatch, count: number): Promise<ApiWatchEvent[]> {
  const events: ApiWatchEvent[] = [];
  const iterator = watch[Symbol.asyncIterator]();
  while (events.length < count) {
    const { value, done } = await iterator.next();
    if (done) break;
    events.push(value);
  }
  return events;
}

describe('watch: a version other than the storage version', () => {
  it('converts each run once for the watchers of a version, who share what it made', async () => {
    const setup = setUp(new CachedStorage(memory()));
    const { v1, v2, storage, converter } = setup;
    try {
      const from = { resourceVersion: String(await storage.currentRevision()) };
      const settings = { bookmarkIntervalMs: 60_000 };
      const watches = [
        await startWatch(v2, 'ns1', from, settings),
        await startWatch(v2, 'ns1', from, settings),
        await startWatch(v2, 'ns1', { ...from, labelSelector: 'app=red' }, settings),
        await startWatch(v1, 'ns1', from, settings),
      ];
      converter.calls.length = 0;
      await v1.create('ns1', { metadata: { name: 'a', labels: { app: 'red' } } });
      const seen = await Promise.all(watches.map((watch) => take(watch, 1)));
      for (const watch of watches) watch.stop();
      // The write's own two (to the storage version and back), then one per version watched.
      assert.deepEqual(converter.callsTo('example.com/v2'), [{ to: 'example.com/v2', names: ['ns1/a'] }]);
      assert.equal(converter.callsTo('example.com/v1').length, 3);
      const objects = seen.map(([event]) => event!.object as KubeObject);
      assert.deepEqual(objects.map((object) => [object.apiVersion, object.metadata.name]), [
        ['example.com/v2', 'a'],
        ['example.com/v2', 'a'],
        ['example.com/v2', 'a'],
        ['example.com/v1', 'a'],
      ]);
      assert.equal(seen[0]![0], seen[1]![0], 'the unfiltered watchers of v2 are handed one event');
      assert.equal(objects[2], objects[0], 'and every watcher of v2 the one object');
    } finally {
      await storage.close();
    }
  });

  it('queues runs in order, whichever conversion ends first', async () => {
    const setup = setUp(new CachedStorage(memory()));
    const { v1, v2, storage, converter } = setup;
    try {
      const watch = await startWatch(v2, 'ns1', { resourceVersion: String(await storage.currentRevision()) }, { bookmarkIntervalMs: 60_000 });
      // The first run's conversion waits until the later ones are done.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const done: string[] = [];
      converter.before = async (objects, to) => {
        if (to !== 'example.com/v2') return;
        const name = objects[0]!.metadata.name!;
        if (name === 'a') await held;
        done.push(name);
      };
      const converted = async (count: number) => {
        while (converter.callsTo('example.com/v2').length < count) await new Promise((resolve) => setTimeout(resolve, 2));
      };
      for (const [i, name] of ['a', 'b', 'c'].entries()) {
        await v1.create('ns1', { metadata: { name } });
        await converted(i + 1);
      }
      while (done.length < 2) await new Promise((resolve) => setTimeout(resolve, 2));
      release();
      const events = await take(watch, 3);
      watch.stop();
      assert.deepEqual(done, ['b', 'c', 'a']);
      assert.deepEqual(events.map((event) => [event.type, (event.object as KubeObject).metadata.name]), [
        ['ADDED', 'a'],
        ['ADDED', 'b'],
        ['ADDED', 'c'],
      ]);
    } finally {
      await storage.close();
    }
  });

  for (const [backend, newStorage] of [
    ['memory', memory],
    ['memory behind a watch cache', () => new CachedStorage(memory())],
  ] as const) {
    it(`finished while a run converts, queues the run, then its last bookmark at the run's revision (${backend})`, async () => {
      const setup = setUp(newStorage());
      const { v1, v2, storage, converter } = setup;
      try {
        const watch = await startWatch(v2, 'ns1', { resourceVersion: String(await storage.currentRevision()), allowWatchBookmarks: true }, { bookmarkIntervalMs: 60_000 });
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        converter.before = (_objects, to) => (to === 'example.com/v2' ? held : undefined);
        const created = await v1.create('ns1', { metadata: { name: 'a' } });
        while (converter.callsTo('example.com/v2').length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
        watch.finish();
        release();
        const events: ApiWatchEvent[] = [];
        for await (const event of watch) events.push(event);
        assert.deepEqual(
          events.map((event) => [event.type, (event.object as KubeObject).metadata.name ?? (event.object as KubeObject).metadata.resourceVersion]),
          [
            ['ADDED', 'a'],
            ['BOOKMARK', created.metadata.resourceVersion],
          ],
        );
      } finally {
        await storage.close();
      }
    });

    it(`a conversion that fails ends the watch with an ERROR event carrying a 500 (${backend})`, async () => {
      const setup = setUp(newStorage());
      const { v1, v2, storage, converter } = setup;
      try {
        const watch = await startWatch(v2, 'ns1', { resourceVersion: String(await storage.currentRevision()) }, { bookmarkIntervalMs: 60_000 });
        converter.before = (_objects, to) => {
          if (to === 'example.com/v2') throw new Error('request to convert CR to an invalid group/version: example.com/v2');
        };
        await v1.create('ns1', { metadata: { name: 'a' } });
        const events: ApiWatchEvent[] = [];
        for await (const event of watch) events.push(event);
        assert.deepEqual(
          events.map((event) => [event.type, (event.object as { code?: number }).code, (event.object as { message?: string }).message]),
          [['ERROR', 500, 'Internal error occurred: request to convert CR to an invalid group/version: example.com/v2']],
        );
      } finally {
        await storage.close();
      }
    });
  }
});
