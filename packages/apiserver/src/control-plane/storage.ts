// The storage a server serves from: the given store timed (etcd_request_duration_seconds counts
// what reaches it), under a watch cache where --watch-cache asks for one, and which resources the
// cache serves (--watch-cache-sizes).
import { CachedStorage, type Storage } from '@plat/storage';
import type { ResolvedResource } from '@plat/registry';
import type { Logger } from 'pino';
import type { ServerMetrics } from '@plat/metrics';
import { registerWatchCacheMetrics, type WatchCacheStatsSource } from '@plat/metrics';
import { timedStorage } from '@plat/metrics';
import { WatchCacheSizes, groupResourceName, type WatchCacheSize } from '../watch-cache-sizes.js';
import type { ServerOptions } from './options.js';

/** The watch cache a server keeps, the store it is over, and --watch-cache-sizes. */
export interface WatchCacheWiring {
  cache: CachedStorage;
  /** What serves the resources left without the cache: the store under it, timed. */
  uncached: Storage;
  sizes: readonly WatchCacheSize[];
}

export interface ServingStorage {
  /** What the resources are served from: the watch cache where there is one, else the timed store. */
  storage: Storage;
  watchCache: WatchCacheWiring | undefined;
}

export function servingStorage(options: Pick<ServerOptions, 'storage' | 'watchCache' | 'watchCacheSizes'>, metrics: ServerMetrics, logger: Logger): ServingStorage {
  // Every call that reaches the store is timed; with a watch cache made here, that is what the
  // cache passes on, not what it answers itself.
  const timed = timedStorage(options.storage, metrics);
  const storage: Storage = options.watchCache
    ? new CachedStorage(timed, {
        ...(typeof options.watchCache === 'object' ? options.watchCache : {}),
        onError: (err, what) => logger.warn({ err, what }, 'watch cache'),
      })
    : timed;
  const cached = (storage === timed ? options.storage : storage) as Storage & { stats?: WatchCacheStatsSource };
  if (typeof cached.stats === 'function') registerWatchCacheMetrics(metrics.stability, () => cached.stats!());
  // The watch cache, whether made here or given: started for every served resource at start-up but
  // those --watch-cache-sizes leaves without one, which are served by the (timed) store under it.
  const watchCache =
    cached instanceof CachedStorage
      ? { cache: cached, uncached: storage === timed ? timedStorage(cached.inner, metrics) : timed, sizes: options.watchCacheSizes ?? [] }
      : undefined;
  return { storage, watchCache };
}

/**
 * Whether a resource is served with the watch cache: with one, unless --watch-cache-sizes gives it
 * 0. kube-apiserver 1.28 applies the flag to custom resources too (its help text says otherwise:
 * the CRD storage's options are built from the uncleared copy, kubernetes/kubernetes#141217), so
 * they are decided the same way. Logged once per resource as upstream's storage factory does.
 */
export function watchCacheDecision(watchCache: WatchCacheWiring | undefined, domain: string, logger: Logger): (resolved: ResolvedResource) => boolean {
  if (!watchCache) return () => false;
  const sizes = new WatchCacheSizes(watchCache.sizes, domain);
  const logged = new Set<string>();
  return ({ group, resource }) => {
    const disabled = sizes.disables(group, resource);
    const name = groupResourceName(group, resource);
    if (!logged.has(name)) {
      logged.add(name);
      const size = sizes.sizeOf(group, resource);
      if (size !== undefined && size > 0) logger.warn(`Dropping watch-cache-size for ${name} - watchCache size is now dynamic`);
      if (disabled) logger.debug({ resource: name }, 'Not using watch cache');
    }
    return !disabled;
  };
}
