// The watch cache's metrics under upstream's names, read from the caches' own counters when
// Prometheus scrapes (the cache lives below the server, in @plat/storage, and knows no metrics).
import { Counter, Gauge } from 'prom-client';
import type { WatchCacheStats } from '@plat/storage';
import type { MetricsStability } from '@plat/serving';

/** Where the numbers come from: CachedStorage.stats(). */
export type WatchCacheStatsSource = () => Promise<WatchCacheStats[]>;

/** `/core/pods/` -> `pods`, `/apps/deployments/` -> `deployments.apps`: upstream's group-resource string. */
export function resourceOfPrefix(prefix: string): string {
  const [group = '', resource = ''] = prefix.split('/').filter(Boolean);
  return group === 'core' ? resource : `${resource}.${group}`;
}

type CounterName = 'eventsReceived' | 'eventsDispatched' | 'innerWatches' | 'lists';

export function registerWatchCacheMetrics(stability: MetricsStability, source: WatchCacheStatsSource): void {
  // Counters follow the caches' own totals: each scrape adds what they gained since the last.
  const seen = new Map<string, number>();
  const advance = (counter: Counter<string>, labels: Record<string, string>, key: string, total: number): void => {
    const before = seen.get(key) ?? 0;
    // A cache started afresh counts from zero again.
    counter.inc(labels, total >= before ? total - before : total);
    seen.set(key, total);
  };
  // prom-client calls collect() before reading a metric; each brings every metric up to date.
  const collect = (): Promise<void> => collectAll();
  const counters: { name: CounterName; counter: Counter<string>; label: 'resource' | 'resource_prefix' }[] = [];
  const counter = (name: string, help: string, field: CounterName, label: 'resource' | 'resource_prefix' = 'resource'): void => {
    const labelNames = label === 'resource' ? ['resource'] : ['resource_prefix', 'index'];
    counters.push({ name: field, counter: new Counter({ name, ...stability.declare(help, { stabilityLevel: 'ALPHA' }), labelNames, collect }), label });
  };
  counter('apiserver_watch_cache_events_received_total', 'Counter of events received in watch cache broken by resource type.', 'eventsReceived');
  counter('apiserver_watch_cache_events_dispatched_total', 'Counter of events dispatched in watch cache broken by resource type.', 'eventsDispatched');
  counter('apiserver_watch_cache_initializations_total', 'Counter of watch cache initializations broken by resource type.', 'innerWatches');
  counter('apiserver_cache_list_total', 'Number of LIST requests served from watch cache', 'lists', 'resource_prefix');
  const capacity = new Gauge({
    name: 'watch_cache_capacity',
    ...stability.declare('Total capacity of watch cache broken by resource type.', { stabilityLevel: 'ALPHA' }),
    labelNames: ['resource'],
    collect,
  });
  // Ours (upstream 1.28 has no measure of it): a cache that stops receiving events serves stale lists and watches.
  const lag = new Gauge({
    name: 'plat_watch_cache_lag_seconds',
    ...stability.declare(
      "Seconds the watch cache of a resource has trailed the oldest of this replica's writes it has not received yet; 0 when it has them all.",
      { stabilityLevel: 'ALPHA' },
    ),
    labelNames: ['resource'],
    collect,
  });
  // Collected once per metric per scrape; reading the caches' counters is cheap and advancing to
  // the same totals again adds nothing.
  async function collectAll(): Promise<void> {
    for (const stats of await source()) {
      const resource = resourceOfPrefix(stats.prefix);
      for (const { name, counter: metric, label } of counters) {
        const labels: Record<string, string> = label === 'resource' ? { resource } : { resource_prefix: stats.prefix, index: '' };
        advance(metric, labels, `${name}\u0000${stats.prefix}`, stats[name]);
      }
      capacity.set({ resource }, stats.capacity);
      lag.set({ resource }, stats.lagSeconds);
    }
  }
}
