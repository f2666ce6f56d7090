// The `cache-ready` readiness check: a replica takes traffic once the watch cache of every resource
// it serves has listed (upstream's informer-sync checks, for the watch cache this server keeps of
// each resource from its start).
import type { HealthCheck } from '@plat/filters';
import { resourceOfPrefix } from '@plat/metrics';

/** What the check reads of the watch cache (CachedStorage). */
export interface CacheSync {
  /** Of these prefixes, those whose cache has not been ready yet. */
  unsynced(prefixes: Iterable<string>): string[];
}

export class CacheReadyCheck implements HealthCheck {
  readonly name = 'cache-ready';
  private passed = false;

  /**
   * @param prefixes the storage prefix of every resource served now
   * @param servedFirst a check that must pass first: the custom resources present at start-up
   *   are served (their definitions' controller has synced), so that their caches count too
   */
  constructor(
    private readonly cache: CacheSync,
    private readonly prefixes: () => Iterable<string>,
    private readonly servedFirst?: HealthCheck,
  ) {}

  async check(): Promise<void> {
    // Once every cache has listed, the replica stays ready as far as this check goes: a cache that
    // re-lists later (its etcd watch broke), or the cache of a custom resource defined since, holds
    // up only the requests that need it, as an informer that has synced once stays synced.
    if (this.passed) return;
    if (this.servedFirst) {
      try {
        await this.servedFirst.check();
      } catch {
        throw new Error('custom resources not served yet');
      }
    }
    const left = this.cache.unsynced(this.prefixes());
    if (left.length > 0) {
      const names = left.slice(0, 5).map(resourceOfPrefix).join(', ');
      throw new Error(`watch caches not ready: ${names}${left.length > 5 ? ` and ${left.length - 5} more` : ''}`);
    }
    this.passed = true;
  }
}
