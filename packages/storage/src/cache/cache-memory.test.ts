import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runStorageConformance } from '../testing/conformance.js';
import { MemoryStorage } from '../memory/store.js';
import { CachedStorage } from './cached-storage.js';
import type { StoredObject, Watch, WatchEvent } from '../interface.js';
import { isStorageError } from '../errors.js';

runStorageConformance({ name: 'watch cache over memory', newStore: async () => new CachedStorage(new MemoryStorage()) });

interface Item extends StoredObject {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  n?: number;
}

const item = (namespace: string, name: string, n = 0): Item => ({ metadata: { name, namespace }, n });

async function collect(watch: Watch, count: number, timeoutMs = 10_000): Promise<WatchEvent[]> {
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

describe('watch cache (memory backend)', () => {
  it('a list from the cache equals a list from the store after 1,000 random writes', async () => {
    const inner = new MemoryStorage();
    const store = new CachedStorage(inner);
    try {
      // Start the cache first, so that every write reaches it through the inner watch.
      await store.list('/apps/things/');
      let seed = 42;
      const random = (n: number): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let i = 0; i < 1000; i++) {
        const namespace = `ns${random(3)}`;
        const name = `t${random(60)}`;
        const key = `/apps/things/${namespace}/${name}`;
        const action = random(3);
        if (action === 0) await store.create(key, item(namespace, name, i)).catch(() => {});
        else if (action === 1) {
          await store
            .guaranteedUpdate<Item>(key, (current) => ({ ...current!, n: i }))
            .catch(() => {});
        } else await store.delete(key).catch(() => {});
        // Interleave writes to another resource, which the cache must not wait on forever.
        if (i % 100 === 0) await store.create(`/core/other/x${i}`, item('', `x${i}`));
      }
      for (const prefix of ['/apps/things/', '/apps/things/ns1/']) {
        const cached = await store.list<Item>(prefix);
        const direct = await inner.list<Item>(prefix);
        assert.deepEqual(cached.items, direct.items);
        assert.equal(cached.revision, direct.revision);
      }
      const even = (object: StoredObject): boolean => ((object as Item).n ?? 0) % 2 === 0;
      assert.deepEqual((await store.list('/apps/things/', { filter: even })).items, (await inner.list('/apps/things/', { filter: even })).items);
      assert.ok(store.listsFromCache >= 3, `lists from cache: ${store.listsFromCache}`);
      assert.equal(store.listsFromStore, 0);
    } finally {
      await store.close();
    }
  });

  it('with consistentListFromCache off (1.28: the gate is alpha), a consistent list reads the store; older states still come from the cache', async () => {
    const inner = new MemoryStorage();
    const store = new CachedStorage(inner, { consistentListFromCache: false });
    // The store's unpaged lists: the callers' (the cache fills itself through paged ones).
    let innerLists = 0;
    const list = inner.list.bind(inner);
    inner.list = ((prefix: string, options?: Parameters<typeof list>[1]) => {
      if (!options?.limit) innerLists++;
      return list(prefix, options);
    }) as typeof inner.list;
    try {
      const written = await store.create('/apps/things/a/b', item('a', 'b'));
      assert.equal((await store.list('/apps/things/')).items.length, 1);
      assert.equal(innerLists, 1, 'the consistent list went to the store');
      assert.equal(store.listsFromCache, 0);
      // The resource's cache started all the same, as upstream's exists from the start: a watch from
      // the list's revision is the cache's.
      await waitUntil(async () => (await store.stats()).some((stats) => stats.prefix === '/apps/things/' && stats.ready));
      // The cache fills through its own (paged) list of the store; what it answers after that is not counted as a store read.
      await store.list('/apps/things/', { notOlderThan: Number(written.metadata?.resourceVersion) });
      assert.equal(store.listsFromCache, 1, 'a list at resourceVersion=0 or NotOlderThan is still the cache\'s');
    } finally {
      await store.close();
    }
  });

  it('a slow watcher is ended without delaying a fast one', async () => {
    // Each event handed on as it comes, so that the buffer's limit falls on an exact event.
    const store = new CachedStorage(new MemoryStorage(), { watcherBufferSize: 50, dispatchIntervalMs: 0 });
    try {
      const start = await store.currentRevision();
      await store.list('/apps/things/');
      const slow = await store.watch('/apps/things/', { recursive: true, revision: start });
      const fast = await store.watch('/apps/things/', { recursive: true, revision: start });
      const fastEvents = collect(fast, 200);
      for (let i = 0; i < 200; i++) await store.create(`/apps/things/ns/t${i}`, item('ns', `t${i}`));
      const received = await fastEvents;
      assert.equal(received.length, 200);
      assert.deepEqual(
        received.map((event) => event.object.metadata?.name),
        Array.from({ length: 200 }, (_, i) => `t${i}`),
      );
      // The slow one got its buffer's worth and then its iteration ended, without an error.
      const slowEvents = await collect(slow, 1000, 2000);
      assert.equal(slowEvents.length, 50);
      const stats = await store.stats();
      assert.equal(stats[0]!.watchers, 0);
    } finally {
      await store.close();
    }
  });

  it('a quiet resource hands its first event on at once, not after an interval', async () => {
    // An interval of a minute: "at once" is told from "after an interval" however loaded the machine.
    const store = new CachedStorage(new MemoryStorage(), { dispatchIntervalMs: 60_000, dispatchFullAtWatchers: 1 });
    try {
      const start = await store.currentRevision();
      await store.list('/apps/things/');
      const watches = [
        await store.watch('/apps/things/', { recursive: true, revision: start }),
        await store.watch('/apps/things/', { recursive: true, revision: start }),
      ];
      const sent = performance.now();
      await store.create('/apps/things/ns/first', item('ns', 'first'));
      // Each watch is stopped after 30 s: half the interval.
      const firsts = await Promise.all(watches.map((watch) => collect(watch, 1, 30_000)));
      assert.deepEqual(firsts.map((events) => events.map((event) => event.object.metadata?.name)), [['first'], ['first']]);
      assert.ok(performance.now() - sent < 30_000, `the first event took ${performance.now() - sent} ms`);
    } finally {
      await store.close();
    }
  });

  it('a busy resource hands its events on in runs', async () => {
    // The full interval from the first watcher on.
    const store = new CachedStorage(new MemoryStorage(), { watcherBufferSize: 50, dispatchIntervalMs: 400, dispatchFullAtWatchers: 1 });
    try {
      const start = await store.currentRevision();
      await store.list('/apps/things/');
      const watch = await store.watch('/apps/things/', { recursive: true, revision: start });
      const slow = await store.watch('/apps/things/', { recursive: true, revision: start });
      const runs: string[][] = [];
      const reading = (async () => {
        for await (const run of watch.batches!()) {
          runs.push(run.map((event) => event.object.metadata!.name!));
          if (runs.flat().length === 201) break;
        }
      })();
      // A quiet resource's first event (at once: the test before).
      await store.create('/apps/things/ns/first', item('ns', 'first'));
      while (runs.length === 0) await new Promise((resolve) => setImmediate(resolve));
      // A burst: 200 events arrive in far fewer runs, in order, none lost to the 50-event buffer
      // (a run may exceed it: the reader keeps up).
      for (let i = 0; i < 200; i++) await store.create(`/apps/things/ns/t${i}`, item('ns', `t${i}`));
      await reading;
      assert.deepEqual(runs.flat(), ['first', ...Array.from({ length: 200 }, (_, i) => `t${i}`)]);
      assert.ok(runs.length < 20, `${runs.length} runs`);
      // The watcher that read nothing has a full buffer when the next run comes: it is ended
      // with what it was handed, without the run. The watchers take turns, spread over the
      // interval: once it has been handed the whole burst (both watchers all 201 events: 402
      // dispatched), the next write comes, and it is read only once the cache has dealt with it.
      const stats = async (): Promise<{ dispatched: number; watchers: number }> =>
        (await store.stats()).reduce((sum, cache) => ({ dispatched: sum.dispatched + cache.eventsDispatched, watchers: sum.watchers + cache.watchers }), { dispatched: 0, watchers: 0 });
      const until = async (what: string, condition: (now: { dispatched: number; watchers: number }) => boolean): Promise<void> => {
        const deadline = performance.now() + 10_000;
        while (!condition(await stats())) {
          if (performance.now() > deadline) assert.fail(`timed out waiting for ${what}: ${JSON.stringify(await stats())}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      await until('the slow watcher handed the whole burst', ({ dispatched }) => dispatched === 402);
      await store.create('/apps/things/ns/last', item('ns', 'last'));
      await until('the slow watcher ended, the last write not handed to it', ({ dispatched, watchers }) => watchers === 0 || dispatched > 402);
      const slowEvents = await collect(slow, 1000, 2000);
      assert.equal(slowEvents.length, 201);
      assert.deepEqual(
        slowEvents.map((event) => event.object.metadata?.name),
        ['first', ...Array.from({ length: slowEvents.length - 1 }, (_, i) => `t${i}`)],
      );
    } finally {
      await store.close();
    }
  });

  it('a subscribed sink gets what waited at once, then each run as dispatched; one that falls behind is ended', async () => {
    const store = new CachedStorage(new MemoryStorage(), { watcherBufferSize: 5, dispatchIntervalMs: 0 });
    try {
      const start = await store.currentRevision();
      await store.list('/apps/things/');
      for (let i = 0; i < 3; i++) await store.create(`/apps/things/ns/h${i}`, item('ns', `h${i}`));
      // Both start before the three writes: those wait for them in the cache's history.
      const reader = await store.watch('/apps/things/', { recursive: true, revision: start });
      const laggard = await store.watch('/apps/things/', { recursive: true, revision: start });
      const sink = (keep: boolean) => {
        const state = { runs: [] as string[][], ended: false, backlog: 0 };
        return {
          state,
          sink: {
            push: (run: WatchEvent[]) => {
              state.runs.push(run.map((event) => event.object.metadata!.name!));
              // The laggard reads nothing: its backlog only grows.
              if (keep) state.backlog += run.length;
            },
            end: () => (state.ended = true),
            get backlog() {
              return state.backlog;
            },
          },
        };
      };
      const fast = sink(false);
      const slow = sink(true);
      reader.subscribe!(fast.sink);
      laggard.subscribe!(slow.sink);
      assert.deepEqual(fast.state.runs, [['h0', 'h1', 'h2']], 'what waited goes over at once, as one run');
      for (let i = 0; i < 6; i++) {
        await store.create(`/apps/things/ns/t${i}`, item('ns', `t${i}`));
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.deepEqual(fast.state.runs.flat(), ['h0', 'h1', 'h2', 't0', 't1', 't2', 't3', 't4', 't5']);
      assert.equal(fast.state.ended, false);
      // The laggard reached a backlog of 5 (its buffer) and was ended without the runs after that.
      assert.equal(slow.state.ended, true);
      assert.deepEqual(slow.state.runs.flat(), ['h0', 'h1', 'h2', 't0', 't1']);
      // Stopping the cache ends the sinks still subscribed.
      await store.close();
      assert.equal(fast.state.ended, true);
    } finally {
      await store.close();
    }
  });

  it('the watchers of a busy resource take turns, spread over the interval, each handed every event once, in order', async () => {
    // Six watchers, 300 ms: a hand-over every 50 ms, two at most at once.
    const store = new CachedStorage(new MemoryStorage(), { dispatchIntervalMs: 300, dispatchFullAtWatchers: 6, dispatchSliceWatchers: 2 });
    try {
      await store.list('/apps/things/');
      // An event with no watcher yet: it leaves the credit as it was.
      const before = await store.create('/apps/things/ns/before', item('ns', 'before'));
      while ((await store.stats())[0]?.revision !== Number(before.metadata.resourceVersion)) await new Promise((resolve) => setTimeout(resolve, 5));
      const start = Number(before.metadata.resourceVersion);
      const began = performance.now();
      const watchers = await Promise.all(
        Array.from({ length: 6 }, async () => {
          const watch = await store.watch('/apps/things/', { recursive: true, revision: start });
          const state = { watch, names: [] as string[], firstAt: Infinity, runs: 0 };
          watch.subscribe!({
            push: (run) => {
              state.firstAt = Math.min(state.firstAt, performance.now() - began);
              state.runs++;
              state.names.push(...run.map((event) => event.object.metadata!.name!));
            },
            end: () => {},
            backlog: 0,
          });
          return state;
        }),
      );
      const first = await store.create('/apps/things/ns/first', item('ns', 'first'));
      while (!watchers.some((watcher) => watcher.runs > 0)) await new Promise((resolve) => setImmediate(resolve));
      // A quiet resource: two watchers (a slice) at once; the others wait their turn, and one that
      // has not been handed the event is not told it is past it.
      const served = watchers.filter((watcher) => watcher.runs > 0);
      assert.equal(served.length, 2);
      const waiting = watchers.find((watcher) => watcher.runs === 0)!;
      assert.ok(waiting.watch.progressRevision!()! < Number(first.metadata.resourceVersion));
      assert.ok(served[0]!.watch.progressRevision!()! >= Number(first.metadata.resourceVersion));
      // A burst while they take their turns.
      for (let i = 0; i < 30; i++) await store.create(`/apps/things/ns/t${i}`, item('ns', `t${i}`));
      const all = ['first', ...Array.from({ length: 30 }, (_, i) => `t${i}`)];
      while (watchers.some((watcher) => watcher.names.length < all.length) && performance.now() - began < 5000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const watcher of watchers) assert.deepEqual(watcher.names, all);
      // Credit for four more hand-overs takes 200 ms to accrue: the last watcher's first run came
      // that long after the first's, however slow the machine.
      const firsts = watchers.map((watcher) => watcher.firstAt).sort((a, b) => a - b);
      assert.ok(firsts[5]! - firsts[0]! >= 190, `first runs at ${firsts.map(Math.round).join(', ')} ms`);
      // Runs, not an event each.
      assert.ok(watchers.every((watcher) => watcher.runs < 10), `runs: ${watchers.map((watcher) => watcher.runs).join(', ')}`);
    } finally {
      await store.close();
    }
  });

  it('with few watchers the interval shrinks: events go out one by one', async () => {
    // Two watchers of 1,000: 2/1,000 of 40 ms between hand-overs.
    const store = new CachedStorage(new MemoryStorage(), { dispatchIntervalMs: 40 });
    try {
      const start = await store.currentRevision();
      await store.list('/apps/things/');
      const watch = await store.watch('/apps/things/', { recursive: true, revision: start });
      const other = await store.watch('/apps/things/', { recursive: true, revision: start });
      let runs = 0;
      const reading = (async () => {
        let seen = 0;
        for await (const run of watch.batches!()) {
          runs++;
          if ((seen += run.length) === 50) break;
        }
      })();
      for (let i = 0; i < 50; i++) {
        await store.create(`/apps/things/ns/f${i}`, item('ns', `f${i}`));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await reading;
      other.stop();
      assert.ok(runs > 40, `${runs} runs for 50 events`);
    } finally {
      await store.close();
    }
  });

  it('serves watches from a past revision inside the window, and Gone beyond it', async () => {
    const store = new CachedStorage(new MemoryStorage(), { maxHistoryEvents: 10 });
    try {
      await store.list('/apps/things/');
      const revisions: number[] = [];
      for (let i = 0; i < 20; i++) {
        const created = await store.create(`/apps/things/ns/t${i}`, item('ns', `t${i}`));
        revisions.push(Number(created.metadata.resourceVersion));
      }
      // Inside the window: from the cache.
      const recent = await store.watch('/apps/things/', { recursive: true, revision: revisions[14]! });
      const events = await collect(recent, 5);
      assert.deepEqual(
        events.map((event) => event.revision),
        revisions.slice(15),
      );
      const [stats] = await store.stats();
      assert.equal(stats!.events, 10);
      assert.equal(stats!.oldestRevision, revisions[9]);
      // Older than the window: Gone from the cache itself, though the store still has that history
      // (as upstream's watch cache: the client lists again, it gets no etcd watch of its own).
      const innerWatch = store.inner.watch.bind(store.inner);
      let innerWatches = 0;
      store.inner.watch = ((key: string, options?: object) => (innerWatches++, innerWatch(key, options))) as typeof store.inner.watch;
      const old = await store.watch('/apps/things/', { recursive: true, revision: revisions[2]! });
      await assert.rejects(collect(old, 1), (error: Error) => isStorageError(error, 'Gone') && error.revision === revisions[9]! + 1);
      assert.equal(innerWatches, 0);
      // After compaction, all the same.
      await store.compact(await store.currentRevision());
      const compacted = await store.watch('/apps/things/', { recursive: true, revision: revisions[2]! });
      await assert.rejects(collect(compacted, 1), (error: Error) => /compacted/.test(error.message));
    } finally {
      await store.close();
    }
  });

  it('a new cache fills its window from the store\'s history: a watch from before it started is served from it', async () => {
    const inner = new MemoryStorage();
    const revisions: number[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await inner.create(`/apps/things/ns/t${i}`, item('ns', `t${i}`, i));
      revisions.push(Number(created.metadata.resourceVersion));
    }
    await inner.guaranteedUpdate<Item>('/apps/things/ns/t3', (current) => ({ ...current!, n: 33 }));
    await inner.delete('/apps/things/ns/t4');
    // A replica started now (a restart): its cache lists, then fills its window back from history.
    const store = new CachedStorage(inner, { historyRevisions: 100 });
    const innerWatch = inner.watch.bind(inner);
    let innerWatches = 0;
    inner.watch = ((key: string, options?: object) => (innerWatches++, innerWatch(key, options))) as typeof inner.watch;
    try {
      store.keep(['/apps/things/']);
      await waitUntil(async () => store.unsynced(['/apps/things/']).length === 0);
      const watch = await store.watch('/apps/things/', { recursive: true, revision: revisions[5]! });
      const events = await collect(watch, 6);
      assert.deepEqual(
        events.map((event) => [event.type, event.object.metadata?.name]),
        [['ADDED', 't6'], ['ADDED', 't7'], ['ADDED', 't8'], ['ADDED', 't9'], ['MODIFIED', 't3'], ['DELETED', 't4']],
      );
      assert.equal(innerWatches, 1, 'the cache\'s own watch only');
      // An object still current is held once: the history's event and the state share it.
      const [stats] = await store.stats();
      assert.equal(stats!.oldestRevision, 0);
      assert.equal(stats!.events, 12);
    } finally {
      await store.close();
    }
  });

  it('a new cache fills its window only back to compaction: older watches are Gone', async () => {
    const inner = new MemoryStorage();
    const revisions: number[] = [];
    for (let i = 0; i < 10; i++) revisions.push(Number((await inner.create(`/apps/things/ns/t${i}`, item('ns', `t${i}`))).metadata.resourceVersion));
    await inner.compact(revisions[6]!);
    const store = new CachedStorage(inner);
    try {
      store.keep(['/apps/things/']);
      await waitUntil(async () => store.unsynced(['/apps/things/']).length === 0);
      const served = await store.watch('/apps/things/', { recursive: true, revision: revisions[6]! });
      assert.deepEqual((await collect(served, 3)).map((event) => event.object.metadata?.name), ['t7', 't8', 't9']);
      const old = await store.watch('/apps/things/', { recursive: true, revision: revisions[2]! });
      await assert.rejects(collect(old, 1), (error: Error) => isStorageError(error, 'Gone'));
    } finally {
      await store.close();
    }
  });

  it('keep starts caches at once, and tries again one that fails to start; unsynced names those not ready yet', async () => {
    const inner = new MemoryStorage();
    const innerList = inner.list.bind(inner);
    let failures = 2;
    inner.list = ((prefix: string, options?: object) => {
      if (prefix === '/apps/broken/' && failures-- > 0) return Promise.reject(new Error('the store is not answering'));
      return innerList(prefix, options);
    }) as typeof inner.list;
    const errors: string[] = [];
    const store = new CachedStorage(inner, { onError: (_, what) => errors.push(what) });
    try {
      assert.deepEqual(store.unsynced(['/apps/things/', '/apps/broken/']), ['/apps/things/', '/apps/broken/']);
      store.keep(['/apps/things/', '/apps/broken/']);
      await waitUntil(async () => store.unsynced(['/apps/things/']).length === 0);
      assert.deepEqual(
        (await store.stats()).map((s) => s.prefix),
        ['/apps/things/', '/apps/broken/'].filter((prefix) => prefix === '/apps/things/' || failures < 0),
        'started without a read',
      );
      await waitUntil(async () => store.unsynced(['/apps/things/', '/apps/broken/']).length === 0);
      assert.deepEqual(errors, ['watch cache /apps/broken/: start', 'watch cache /apps/broken/: start']);
      store.release('/apps/broken/');
      assert.deepEqual(store.unsynced(['/apps/broken/']), ['/apps/broken/']);
    } finally {
      await store.close();
    }
  });

  it('gets and lists that accept an older state are answered by the cache, without the store', async () => {
    const inner = new MemoryStorage();
    const store = new CachedStorage(inner);
    const reads = { get: 0, list: 0 };
    const innerGet = inner.get.bind(inner);
    const innerList = inner.list.bind(inner);
    inner.get = ((key: string, options?: object) => (reads.get++, innerGet(key, options))) as typeof inner.get;
    inner.list = ((prefix: string, options?: object) => (reads.list++, innerList(prefix, options))) as typeof inner.list;
    try {
      const created = await store.create('/apps/things/ns/a', item('ns', 'a', 1));
      await store.list('/apps/things/', { notOlderThan: 0 });
      await waitUntil(async () => (await store.stats())[0]?.revision === Number(created.metadata.resourceVersion));
      const before = { ...reads };
      const any = await store.get<Item>('/apps/things/ns/a', { notOlderThan: 0 });
      assert.equal(any.n, 1);
      const floor = await store.get<Item>('/apps/things/ns/a', { notOlderThan: Number(created.metadata.resourceVersion) });
      assert.equal(floor.metadata.resourceVersion, created.metadata.resourceVersion);
      await assert.rejects(store.get('/apps/things/ns/missing', { notOlderThan: 0 }), (error: Error) => /not found/.test(error.message));
      const listed = await store.list<Item>('/apps/things/', { notOlderThan: 0 });
      assert.deepEqual(listed.items.map((i) => i.metadata.name), ['a']);
      assert.deepEqual(reads, before, 'the store was not read');
      // Any state with a limit: the whole list from the cache, the limit ignored, as upstream.
      await store.create('/apps/things/ns/b', item('ns', 'b', 2));
      const whole = await store.list<Item>('/apps/things/', { notOlderThan: 0, limit: 1 });
      assert.deepEqual(whole.items.map((i) => i.metadata.name), ['a', 'b']);
      assert.equal(whole.continue, '');
      assert.deepEqual(reads, before, 'the store was not read for a limited list of any state');
      // A floor above zero with a limit pages through the store.
      const paged = await store.list<Item>('/apps/things/', { notOlderThan: Number(created.metadata.resourceVersion), limit: 1 });
      assert.equal(paged.items.length, 1);
      assert.notEqual(paged.continue, '');
      assert.equal(reads.list, before.list + 1);
      reads.list = before.list;
      // A caller that may change what it gets receives its own copy; a read-only caller the cache's.
      any.n = 99;
      assert.equal((await store.get<Item>('/apps/things/ns/a', { notOlderThan: 0 })).n, 1);
      const shared = await store.get<Item>('/apps/things/ns/a', { notOlderThan: 0, readOnly: true });
      assert.equal(shared, await store.get<Item>('/apps/things/ns/a', { notOlderThan: 0, readOnly: true }));
      // A consistent get still reads the store.
      await store.get('/apps/things/ns/a');
      assert.equal(reads.get, before.get + 1);
    } finally {
      await store.close();
    }
  });
});

describe('watch cache: reads accepting an older state see this process\'s own writes', () => {
  it('waits for the cache to reach its own last write, even when the inner watch lags', async () => {
    const inner = new MemoryStorage();
    // Every event reaches the cache 100 ms late.
    const innerWatch = inner.watch.bind(inner);
    inner.watch = (async (key: string, options?: object) => {
      const watch = await innerWatch(key, options);
      async function* late(): AsyncGenerator<WatchEvent> {
        for await (const event of watch) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          yield event;
        }
      }
      return { [Symbol.asyncIterator]: late, stop: () => watch.stop() };
    }) as typeof inner.watch;
    const store = new CachedStorage(inner);
    try {
      await store.list('/apps/things/', { notOlderThan: 0 });
      await store.create('/apps/things/ns/a', item('ns', 'a', 1));
      assert.equal((await store.get<Item>('/apps/things/ns/a', { notOlderThan: 0 })).n, 1);
      await store.guaranteedUpdate<Item>('/apps/things/ns/a', (current) => ({ ...current!, n: 2 }));
      assert.equal((await store.get<Item>('/apps/things/ns/a', { notOlderThan: 0, readOnly: true })).n, 2);
      assert.deepEqual((await store.list<Item>('/apps/things/', { notOlderThan: 0 })).items.map((i) => i.n), [2]);
    } finally {
      await store.close();
    }
  });
});

describe('watch cache: its lag behind this process\'s writes', () => {
  it('is 0 while the cache has every write, grows while its watch holds them back, and is 0 again once they arrive', async () => {
    const inner = new MemoryStorage();
    let release!: () => void;
    let held: Promise<void> = Promise.resolve();
    const innerWatch = inner.watch.bind(inner);
    inner.watch = (async (key: string, options?: object) => {
      const watch = await innerWatch(key, options);
      async function* holding(): AsyncGenerator<WatchEvent> {
        for await (const event of watch) {
          await held;
          yield event;
        }
      }
      return { [Symbol.asyncIterator]: holding, stop: () => watch.stop() };
    }) as typeof inner.watch;
    const store = new CachedStorage(inner);
    const lag = async (): Promise<number | undefined> => (await store.stats()).find((stats) => stats.prefix === '/apps/things/')?.lagSeconds;
    try {
      await store.list('/apps/things/', { notOlderThan: 0 });
      await store.create('/apps/things/ns/a', item('ns', 'a'));
      await waitUntil(async () => (await lag()) === 0);
      held = new Promise((resolve) => (release = resolve));
      await store.create('/apps/things/ns/b', item('ns', 'b'));
      await new Promise((resolve) => setTimeout(resolve, 150));
      await store.create('/apps/things/ns/c', item('ns', 'c'));
      const behind = (await lag())!;
      assert.ok(behind >= 0.14 && behind < 5, `lag ${behind}: from the oldest write not received`);
      release();
      await waitUntil(async () => (await lag()) === 0);
    } finally {
      release?.();
      await store.close();
    }
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('watch cache: release', () => {
  it('drops a resource cache and its watch on the store; the next read starts a new one', async () => {
    const inner = new MemoryStorage();
    const cached = new CachedStorage(inner);
    await cached.create('/example.com/widgets/ns/a', item('ns', 'a'));
    await cached.list('/example.com/widgets/', { notOlderThan: 0 });
    const before = await cached.stats();
    assert.deepEqual(before.map((s) => [s.prefix, s.objects]), [['/example.com/widgets/', 1]]);
    const watch = await cached.watch('/example.com/widgets/', { recursive: true, revision: await cached.currentRevision() });
    const ended = collect(watch, 1, 5000);
    cached.release('/example.com/widgets/');
    // Its watchers end with it, and so does its own watch on the store.
    assert.deepEqual(await ended, []);
    assert.deepEqual(await cached.stats(), []);
    await cached.list('/example.com/widgets/', { notOlderThan: 0 });
    assert.deepEqual((await cached.stats()).map((s) => s.prefix), ['/example.com/widgets/']);
    await cached.close();
  });
});
