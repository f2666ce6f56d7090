// The watch cache as a Storage decorator: per resource (`/<group>/<resource>/`), one inner watch
// feeds an in-memory copy from which every watch, every current unpaged list, and the gets and
// lists that accept a state not older than some revision are served. Writes, consistent gets,
// paged lists and reads at a given revision go to the inner store. A watch from before a cache's
// window is Gone (410 to the client, which lists again), never a watch of its own on the store.
//
// Objects served from the cache are shared between callers: they must not be mutated.
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  Storage,
  StoredObject,
  UpdateFunction,
  UpdateOptions,
  Watch,
  WatchOptions,
} from '../interface.js';
import { notFound } from '../errors.js';
import { ResourceCache } from './resource-cache.js';

export interface CachedStorageOptions {
  /** Events younger than this are kept for watches from past revisions. Default 5 minutes. */
  historyWindowMs?: number;
  /** The most events kept per resource, however young. Default 100,000. */
  maxHistoryEvents?: number;
  /** Events a watcher may leave unread before it is ended. Default 10,000. */
  watcherBufferSize?: number;
  /** How long a current list waits for the cache to reach the store's revision. Default 3 s. */
  consistentReadTimeoutMs?: number;
  /**
   * Serve consistent (current, unpaged) lists from the cache once it has reached the store's
   * revision (the ConsistentListFromCache gate, alpha and off in Kubernetes 1.28: then such lists
   * are read from the store). Default true.
   */
  consistentListFromCache?: boolean;
  /** Page size of the list that fills a cache. Default 10,000. */
  listPageSize?: number;
  /**
   * How many revisions before its first list a cache fills its window with, from the store's
   * history where compaction left it: after a restart, clients that resume watches from the
   * resourceVersions they had (a bookmark's, say) find them in the window instead of being told
   * to list again. Default 10,000: the writes of a restart and a bookmark's age at 100 writes a
   * second, several times over. Not more: etcd sends a watch's past events 1,000 revisions per
   * 100 ms round, reading the whole range again each round (its syncWatchers), so 100,000
   * revisions would take it over 10 s and much CPU. 0: the window starts at the list.
   */
  historyRevisions?: number;
  /**
   * How long a watch waits for a cache that is not ready (starting, or re-listing after its inner
   * watch failed) before the inner store serves it. Default 3 s.
   */
  watchWaitMs?: number;
  /**
   * How long a watch from a revision a new cache's window is still being filled back to waits for
   * the filling to end, before the inner store serves it. Default 10 s. The filling ends with the
   * first event after the cache's list, or a progress notification past it: etcd's periodic ones
   * (--experimental-watch-progress-notify-interval: 5 s as kube-up sets it), or at once where etcd
   * answers progress requests safely (3.4.31+, 3.5.13+), and on the embedded backends.
   */
  fillWaitMs?: number;
  /**
   * A busy resource with `dispatchFullAtWatchers` (default 1,000) watchers or more hands events to
   * them at most this often; with fewer, the interval shrinks in proportion (10 watchers: 1/100 of
   * it); a quiet resource hands each event on at once. Default 40 ms: with 1,000 watchers of a
   * resource written 200 times a second, 25 hand-overs (and socket writes per watcher) a second
   * instead of 200 (bench/api). 0 hands each event on as it comes.
   */
  dispatchIntervalMs?: number;
  dispatchFullAtWatchers?: number;
  /**
   * Watchers handed their runs in one turn of the event loop, the slices following each other
   * through the interval. Default 100: with 1,000 watchers, a tenth of them every 4 ms.
   */
  dispatchSliceWatchers?: number;
  /** Where failures of the inner watches are reported. */
  onError?: (error: unknown, what: string) => void;
}

export interface WatchCacheStats {
  prefix: string;
  ready: boolean;
  revision: number;
  oldestRevision: number;
  objects: number;
  events: number;
  watchers: number;
  innerWatches: number;
  rebuilds: number;
  /** Events applied from the inner watch, and handed to watchers (once per watcher). */
  eventsReceived: number;
  eventsDispatched: number;
  /** Lists answered from the cache. */
  lists: number;
  /** The most events the window keeps. */
  capacity: number;
  /**
   * How long, in seconds, the cache has trailed the oldest write of this process below its prefix
   * that it has not received yet; 0 when it has them all. A cache whose watch stalls shows it here.
   */
  lagSeconds: number;
}

/** How many of a prefix's writes the lag keeps track of; past it, the newest ones share a time. */
const MAX_TRACKED_WRITES = 1024;

/** The cache prefix of a key: `/<group>/<resource>/`, or undefined for a shorter key. */
export function cachePrefix(key: string): string | undefined {
  const second = key.indexOf('/', 1);
  if (!key.startsWith('/') || second < 0) return undefined;
  const third = key.indexOf('/', second + 1);
  if (third < 0) return undefined;
  return key.slice(0, third + 1);
}

export class CachedStorage implements Storage {
  private readonly caches = new Map<string, Promise<ResourceCache | undefined>>();
  /** The caches being started or started, by prefix (the settled side of `caches`). */
  private readonly started = new Map<string, ResourceCache>();
  /** Prefixes whose caches are kept running from now on (`keep`), restarted when they fail to start. */
  private readonly kept = new Set<string>();
  private readonly watchWaitMs: number;
  private readonly fillWaitMs: number;
  private readonly settings: ConstructorParameters<typeof ResourceCache>[2];
  private readonly consistentReadTimeoutMs: number;
  private readonly consistentListFromCache: boolean;
  private closed = false;
  /** Current lists served from the cache, and those that fell back to the inner store. */
  listsFromCache = 0;
  listsFromStore = 0;

  constructor(
    readonly inner: Storage,
    options: CachedStorageOptions = {},
  ) {
    const maxHistoryEvents = options.maxHistoryEvents ?? 100_000;
    this.settings = {
      historyWindowMs: options.historyWindowMs ?? 5 * 60 * 1000,
      maxHistoryEvents,
      historyRevisions: options.historyRevisions ?? 10_000,
      watcherBufferSize: options.watcherBufferSize ?? 10_000,
      listPageSize: options.listPageSize ?? 10_000,
      dispatchIntervalMs: options.dispatchIntervalMs ?? 40,
      dispatchFullAtWatchers: options.dispatchFullAtWatchers ?? 1000,
      dispatchSliceWatchers: options.dispatchSliceWatchers ?? 100,
      onError: options.onError ?? (() => {}),
    };
    this.consistentReadTimeoutMs = options.consistentReadTimeoutMs ?? 3000;
    this.consistentListFromCache = options.consistentListFromCache ?? true;
    this.watchWaitMs = options.watchWaitMs ?? 3000;
    this.fillWaitMs = options.fillWaitMs ?? 10_000;
  }

  /**
   * Starts the caches of these prefixes now (one per `/<group>/<resource>/`) and keeps them: one
   * that fails to start is tried again, 100 ms later doubling to 5 s, until it starts or its
   * prefix is released. What a replica serves is cached from its start, not from first use.
   */
  keep(prefixes: Iterable<string>): void {
    for (const key of prefixes) {
      const prefix = cachePrefix(key);
      if (prefix === undefined || this.kept.has(prefix)) continue;
      this.kept.add(prefix);
      this.startKept(prefix, 100);
    }
  }

  private startKept(prefix: string, delayMs: number): void {
    void this.cacheFor(prefix).then((cache) => {
      if (cache || this.closed || !this.kept.has(prefix)) return;
      setTimeout(() => this.startKept(prefix, Math.min(delayMs * 2, 5000)), delayMs).unref();
    });
  }

  /** Whether current unpaged lists are answered by the cache (ConsistentListFromCache), not read from the store. */
  get servesConsistentLists(): boolean {
    return this.consistentListFromCache;
  }

  /**
   * How many objects the cache holds below `prefix` now, or undefined when it has none ready: what
   * a list of it will hold, for a budget of memory (no read of the store).
   */
  objectCount(prefix: string): number | undefined {
    return this.readyCacheOf(prefix)?.count(prefix);
  }

  /**
   * Up to `count` objects below `prefix`, spread through them, or undefined when its cache is not
   * ready: what the objects weigh, for a list's memory estimate before any list of them was written.
   * Shared: not to be mutated.
   */
  sampleObjects(prefix: string, count: number): readonly StoredObject[] | undefined {
    return this.readyCacheOf(prefix)?.sample(prefix, count);
  }

  /** The cache holding `prefix`, if it is ready (no read of the store, no cache started). */
  private readyCacheOf(prefix: string): ResourceCache | undefined {
    const cachePrefixOf = cachePrefix(prefix);
    const cache = cachePrefixOf === undefined ? undefined : this.started.get(cachePrefixOf);
    return cache?.ready ? cache : undefined;
  }

  /**
   * Of these prefixes, those whose cache has not been ready yet (not started, or still listing):
   * a replica is ready to serve once none is left, as upstream's informer-sync check.
   */
  unsynced(prefixes: Iterable<string>): string[] {
    const left: string[] = [];
    for (const key of prefixes) {
      const prefix = cachePrefix(key);
      if (prefix !== undefined && !this.started.get(prefix)?.synced) left.push(prefix);
    }
    return left;
  }

  /** The resource's cache, started on first use; undefined when it cannot be started. */
  private cacheFor(key: string): Promise<ResourceCache | undefined> {
    const prefix = cachePrefix(key);
    if (prefix === undefined || this.closed) return Promise.resolve(undefined);
    let cache = this.caches.get(prefix);
    if (!cache) {
      const created = new ResourceCache(this.inner, prefix, this.settings);
      this.started.set(prefix, created);
      cache = created.start().then(
        () => created,
        (error: unknown) => {
          // Try again on the next request (or, for a kept prefix, after a while: `keep`).
          if (this.caches.get(prefix) === cache) this.caches.delete(prefix);
          if (this.started.get(prefix) === created) this.started.delete(prefix);
          created.stop();
          this.settings.onError(error, `watch cache ${prefix}: start`);
          return undefined;
        },
      );
      this.caches.set(prefix, cache);
    }
    return cache;
  }

  /**
   * The revision of this process's last write below each cache prefix. A read that accepts an older
   * state still waits for the cache to reach it, so that a client sees its own writes through the
   * replica it wrote them through (a namespace marked Terminating refuses content at once).
   */
  private readonly lastWrites = new Map<string, number>();

  /**
   * This process's writes below each prefix with a cache, oldest first, each with when it was
   * acknowledged, until the cache is seen to have them (stats()): how far behind the cache is.
   */
  private readonly unseenWrites = new Map<string, { revision: number; at: number }[]>();

  private noteWrite<T extends StoredObject>(key: string, written: T): T {
    const prefix = cachePrefix(key);
    const revision = Number(written.metadata?.resourceVersion);
    if (prefix !== undefined && revision > (this.lastWrites.get(prefix) ?? 0)) this.lastWrites.set(prefix, revision);
    if (prefix !== undefined && revision > 0 && this.caches.has(prefix)) {
      let writes = this.unseenWrites.get(prefix);
      if (!writes) this.unseenWrites.set(prefix, (writes = []));
      // Bounded: the newest write then takes the place of the last one kept, whose (earlier) time
      // keeps the lag from being understated.
      if (writes.length >= MAX_TRACKED_WRITES) writes[writes.length - 1]!.revision = revision;
      else writes.push({ revision, at: Date.now() });
    }
    return written;
  }

  /** Seconds since the oldest write below `cache`'s prefix that the cache has not received; forgets the ones it has. */
  private lagOf(cache: ResourceCache, now: number): number {
    const writes = this.unseenWrites.get(cache.prefix);
    if (!writes) return 0;
    let seen = 0;
    while (seen < writes.length && writes[seen]!.revision <= cache.revision) seen++;
    writes.splice(0, seen);
    if (!writes.length) {
      this.unseenWrites.delete(cache.prefix);
      return 0;
    }
    return (now - writes[0]!.at) / 1000;
  }

  /**
   * The cache of `key`'s resource once it may answer a read: one accepting any state at or after
   * `notOlderThan` (and this process's last write below the prefix), or, with `notOlderThan`
   * undefined, a consistent read (the store's current revision). Undefined when it cannot.
   */
  private async readyCache(key: string, notOlderThan: number | undefined): Promise<ResourceCache | undefined> {
    const cache = await this.cacheFor(key);
    if (!cache) return undefined;
    let revision: number;
    let eventExpected = false;
    if (notOlderThan === undefined) revision = await this.inner.currentRevision();
    else {
      const prefix = cachePrefix(key);
      const written = prefix === undefined ? 0 : (this.lastWrites.get(prefix) ?? 0);
      // Only an event can bring the cache to this process's own write: it is known to exist.
      eventExpected = written > notOlderThan;
      revision = Math.max(written, notOlderThan);
    }
    return (await cache.waitFor(revision, this.consistentReadTimeoutMs, eventExpected)) ? cache : undefined;
  }

  async create<T extends StoredObject>(key: string, object: T, options?: CreateOptions): Promise<T> {
    return this.noteWrite(key, await this.inner.create(key, object, options));
  }

  async get<T extends StoredObject>(key: string, options: GetOptions = {}): Promise<T> {
    if (options.notOlderThan !== undefined && !options.revision) {
      const cache = await this.readyCache(key, options.notOlderThan);
      if (cache) {
        const object = cache.get(key);
        if (!object) throw notFound(key);
        // The cache's copy is shared: a caller that may change what it gets receives its own.
        return (options.readOnly ? object : structuredClone(object)) as T;
      }
    }
    return this.inner.get(key, options);
  }

  async list<T extends StoredObject>(prefix: string, options: ListOptions = {}): Promise<ListResult<T>> {
    // Paged, continued and exact-revision lists keep the inner store's tokens and history. A list
    // of any state (resourceVersion "0") is served whole from the cache, its limit ignored, as
    // upstream's watch cache does: a page of it could not be continued from the cache.
    const anyState = options.notOlderThan === 0;
    const consistent = options.notOlderThan === undefined;
    if (options.continue || ((options.limit ?? 0) > 0 && !anyState) || (options.revision ?? 0) > 0) return this.inner.list(prefix, options);
    if (consistent && !this.consistentListFromCache) {
      // A list the cache would answer with the gate on starts the cache all the same (upstream's
      // exists from the start): a client that lists and then watches from the list's revision is
      // then served by the cache, not by a store watch of its own.
      void this.cacheFor(prefix);
      return this.inner.list(prefix, options);
    }
    // A consistent read: the cache must have seen everything the store had when asked. A read
    // that accepts an older state needs the cache to have reached only that.
    const cache = await this.readyCache(prefix, options.notOlderThan);
    if (cache) {
      this.listsFromCache++;
      cache.listsServed++;
      const result = cache.list(prefix, options.filter);
      return { items: result.items as T[], keys: result.keys, revision: result.revision, continue: '' };
    }
    this.listsFromStore++;
    return this.inner.list(prefix, options);
  }

  async guaranteedUpdate<T extends StoredObject>(key: string, update: UpdateFunction<T>, options?: UpdateOptions): Promise<T> {
    return this.noteWrite(key, await this.inner.guaranteedUpdate(key, update, options));
  }

  delete<T extends StoredObject>(key: string, options?: DeleteOptions<T>): Promise<T> {
    return this.inner.delete(key, options);
  }

  async watch<T extends StoredObject>(key: string, options: WatchOptions = {}): Promise<Watch<T>> {
    // A watch that asks for progress notifications is one the cache cannot give: pass it through.
    if (options.onProgress) return this.inner.watch(key, options);
    const cache = await this.cacheFor(key);
    if (cache && (cache.ready || (await cache.whenReady(this.watchWaitMs)))) {
      // "From now" is pinned to the store's revision, so that no write made before it is seen.
      const after = options.revision || (await this.inner.currentRevision());
      // A revision the new window is still being filled back to is served once it is there. (A
      // filling not over by then leaves the watch to the store: the window is not known yet.)
      if (cache.waitsForFill(after)) await cache.whenFilled(this.fillWaitMs);
      if (!cache.waitsForFill(after)) {
        // Older than the window: Gone, as upstream's watch cache answers.
        const watch = cache.watch(key, options.recursive ?? false, after);
        if (watch) return watch as Watch<T>;
      }
    }
    // Not cached, or the cache not ready (or its window not filled) within the wait: the inner store serves it.
    return this.inner.watch(key, options);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  checkHealth(): Promise<void> {
    return this.inner.checkHealth();
  }

  /** One entry per resource cache. */
  async stats(): Promise<WatchCacheStats[]> {
    // The caches as they are, those still listing too (not waited for: a scrape must not hang on them).
    const now = Date.now();
    return [...this.started.values()]
      .map((cache) => ({
        prefix: cache.prefix,
        ready: cache.ready,
        revision: cache.revision,
        oldestRevision: cache.oldestRevision,
        objects: cache.size,
        events: cache.historyLength,
        watchers: cache.watcherCount,
        innerWatches: cache.innerWatches,
        rebuilds: cache.rebuilds,
        eventsReceived: cache.eventsReceived,
        eventsDispatched: cache.eventsDispatched,
        lists: cache.listsServed,
        capacity: this.settings.maxHistoryEvents,
        lagSeconds: this.lagOf(cache, now),
      }));
  }

  release(prefix: string): void {
    this.kept.delete(prefix);
    const cache = this.caches.get(prefix);
    if (!cache) return;
    this.caches.delete(prefix);
    this.started.delete(prefix);
    this.lastWrites.delete(prefix);
    this.unseenWrites.delete(prefix);
    void cache.then((started) => started?.stop());
  }

  async close(): Promise<void> {
    this.closed = true;
    const caches = await Promise.all(this.caches.values());
    for (const cache of caches) cache?.stop();
    this.caches.clear();
    this.started.clear();
    this.kept.clear();
    await this.inner.close();
  }
}
