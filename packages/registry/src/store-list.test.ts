import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '@plat/apimachinery';
import { CachedStorage, createStorage, type Storage } from '@plat/storage';
import type { KubeObject, ResourceDefinition } from './definition.js';
import { EXPIRED_LIST_MESSAGE, INCONSISTENT_CONTINUE_MESSAGE } from './errors.js';
import { resolveResource } from './resolved.js';
import { ResourceStore } from './resource-store.js';
import type { StoreFeatures } from './store-reads.js';
import { startWatch, type ApiWatchEvent } from './watch.js';

const widgets: ResourceDefinition<KubeObject> = {
  group: 'things.{domain}',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singularName: 'widget',
  namespaced: false,
  verbs: ['get', 'list', 'watch', 'create'],
  schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' } } },
  strategy: { validate: () => [], validateUpdate: () => [] },
  allowCreateOnUpdate: false,
};

const backends: [string, () => Storage][] = [
  ['memory', () => createStorage({ backend: 'memory', compactionIntervalMs: 0 })],
  ['memory behind a watch cache', () => new CachedStorage(createStorage({ backend: 'memory', compactionIntervalMs: 0 }))],
];

function newStore(storage: Storage, features?: StoreFeatures): ResourceStore {
  return new ResourceStore(resolveResource(widgets, 'example.com'), { storage, context: { domain: 'example.com' }, ...(features && { features }) });
}

/** Widgets a, b, c; a first page of one; then d; then history compacted up to now. */
async function compactedAfterFirstPage(store: ResourceStore): Promise<{ firstRevision: string; token: string; latest: number }> {
  for (const name of ['a', 'b', 'c']) await store.create('', { metadata: { name } });
  const page = await store.list('', { limit: 1 });
  await store.create('', { metadata: { name: 'd' } });
  const latest = await store.storage.currentRevision();
  await store.storage.compact(latest);
  return { firstRevision: page.metadata.resourceVersion, token: page.metadata.continue!, latest };
}

async function expired(promise: Promise<unknown>): Promise<{ message?: string; reason?: string; code: number; metadata: { continue?: string } }> {
  const error = await promise.then(() => assert.fail('expected 410'), (error: unknown) => error);
  assert.ok(isStatusError(error), String(error));
  return error.status;
}

for (const [backend, newStorage] of backends) {
  const cases: { name: string; run: (store: ResourceStore) => Promise<void> }[] = [
    {
      name: 'an Exact list at a compacted resourceVersion is 410 Expired with upstream\u2019s message',
      run: async (store) => {
        const { firstRevision } = await compactedAfterFirstPage(store);
        const status = await expired(store.list('', { resourceVersion: firstRevision, resourceVersionMatch: 'Exact' }));
        assert.deepEqual([status.code, status.reason, status.message], [410, 'Expired', EXPIRED_LIST_MESSAGE]);
      },
    },
    {
      name: 'a list with a compacted resourceVersion and a limit is 410 Expired with the same message',
      run: async (store) => {
        const { firstRevision } = await compactedAfterFirstPage(store);
        const status = await expired(store.list('', { resourceVersion: firstRevision, limit: 1 }));
        assert.deepEqual([status.code, status.reason, status.message], [410, 'Expired', EXPIRED_LIST_MESSAGE]);
      },
    },
    {
      name: 'an expired continue token is 410 Expired with a token that gets the rest at the latest revision',
      run: async (store) => {
        const { token, latest } = await compactedAfterFirstPage(store);
        const status = await expired(store.list('', { limit: 2, continue: token }));
        assert.deepEqual([status.code, status.reason, status.message], [410, 'Expired', INCONSISTENT_CONTINUE_MESSAGE]);
        assert.ok(status.metadata.continue);
        const rest = await store.list('', { limit: 2, continue: status.metadata.continue });
        assert.deepEqual(rest.items.map((item) => item.metadata.name), ['b', 'c']);
        assert.equal(rest.metadata.resourceVersion, String(latest));
        const last = await store.list('', { limit: 2, continue: rest.metadata.continue });
        assert.deepEqual(last.items.map((item) => item.metadata.name), ['d']);
        assert.equal(last.metadata.resourceVersion, String(latest));
        assert.equal(last.metadata.continue, undefined);
      },
    },
    {
      name: 'a get with a compacted resourceVersion is answered (it reads the latest state), as upstream',
      run: async (store) => {
        const { firstRevision } = await compactedAfterFirstPage(store);
        const widget = await store.get('', 'a', firstRevision);
        assert.equal(widget.metadata.name, 'a');
      },
    },
    {
      name: 'a watch from a compacted resourceVersion is one ERROR event: 410 Expired, too old resource version',
      run: async (store) => {
        const { firstRevision, latest } = await compactedAfterFirstPage(store);
        const watch = await startWatch(store, '', { resourceVersion: String(Number(firstRevision) - 2) }, { bookmarkIntervalMs: 60_000 });
        const events: ApiWatchEvent[] = [];
        for await (const event of watch) events.push(event);
        assert.equal(events.length, 1);
        assert.equal(events[0]!.type, 'ERROR');
        const status = events[0]!.object as { code: number; reason: string; message: string };
        // The oldest version a watch may still start from: the one before the oldest the store
        // kept, or where a watch cache's window starts (its list, here after the compaction).
        const oldest = store.storage instanceof CachedStorage ? latest : latest - 1;
        assert.deepEqual(
          [status.code, status.reason, status.message],
          [410, 'Expired', `too old resource version: ${Number(firstRevision) - 2} (${oldest})`],
        );
      },
    },
    {
      name: 'with APIListChunking off, limit and continue are ignored: the whole list, no token',
      run: async (store) => {
        const chunked = newStore(store.storage);
        const { token, firstRevision } = await compactedAfterFirstPage(chunked);
        const unpaged = newStore(store.storage, { apiListChunking: false });
        for (const query of [{ limit: 1 }, { limit: 1, continue: token }, { continue: 'not a token' }]) {
          const list = await unpaged.list('', query);
          assert.deepEqual(list.items.map((item) => item.metadata.name), ['a', 'b', 'c', 'd'], JSON.stringify(query));
          assert.equal(list.metadata.continue, undefined);
          assert.equal(list.metadata.remainingItemCount, undefined);
        }
        // Without paging a version with a limit is not an exact read, so not a compacted one.
        const old = await unpaged.list('', { resourceVersion: firstRevision, limit: 1 });
        assert.equal(old.items.length, 4);
        // Validation still sees the continue token.
        await assert.rejects(unpaged.list('', { continue: token, resourceVersion: '1', resourceVersionMatch: 'NotOlderThan' }), (error) =>
          isStatusError(error, 'Invalid'),
        );
      },
    },
    {
      name: 'with WatchList off (the default) sendInitialEvents is refused; on, the initial events stream',
      run: async (store) => {
        await store.create('', { metadata: { name: 'a' } });
        const query = { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true };
        await assert.rejects(startWatch(store, '', query, { bookmarkIntervalMs: 60_000 }), (error: unknown) => {
          assert.ok(isStatusError(error, 'Invalid'));
          assert.equal(
            error.status.message,
            'ListOptions.meta.example.com "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          );
          return true;
        });
        const watch = await startWatch(newStore(store.storage, { watchList: true }), '', query, { bookmarkIntervalMs: 60_000 });
        const events: ApiWatchEvent[] = [];
        for await (const event of watch) {
          events.push(event);
          if (event.type === 'BOOKMARK') break;
        }
        watch.stop();
        assert.deepEqual(events.map((event) => event.type), ['ADDED', 'BOOKMARK']);
      },
    },
  ];
  for (const { name, run } of cases) {
    test(`list and watch (${backend}): ${name}`, async () => {
      const storage = newStorage();
      try {
        await run(newStore(storage));
      } finally {
        await storage.close();
      }
    });
  }
}
