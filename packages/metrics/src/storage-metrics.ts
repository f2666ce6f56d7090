// Storage as the server sees it: every call timed into etcd_request_duration_seconds, and the
// objects of each resource counted periodically into apiserver_storage_objects.
import type { Storage } from '@plat/storage';
import type { Logger } from 'pino';
import type { ServerMetrics } from './metrics.js';

/** The calls timed, by upstream's operation names where they differ from ours. */
const operations: Readonly<Record<string, string>> = {
  create: 'create',
  get: 'get',
  list: 'list',
  guaranteedUpdate: 'update',
  delete: 'delete',
  watch: 'watch',
  currentRevision: 'currentRevision',
  compact: 'compact',
};

/** `<resource>.<group>` (or `<resource>` for the core group) of a key `/<group or core>/<resource>/...`. */
export function keyType(key: unknown): string {
  if (typeof key !== 'string') return '';
  // The second and third '/'-separated parts, found without splitting the whole key (every call).
  const first = key.indexOf('/');
  const second = first < 0 ? -1 : key.indexOf('/', first + 1);
  if (second < 0) return '';
  const third = key.indexOf('/', second + 1);
  const group = key.slice(first + 1, second);
  const resource = key.slice(second + 1, third < 0 ? key.length : third);
  if (!group || !resource) return '';
  return group === 'core' ? resource : `${resource}.${group}`;
}

/**
 * Wraps `storage` so that each call of a known operation is timed (until its promise settles; a
 * watch until it is established). Other members pass through unchanged, so methods the storage
 * gains later keep working.
 */
export function timedStorage(storage: Storage, metrics: ServerMetrics): Storage {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(storage, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      let bound = wrapped.get(property);
      if (!bound) {
        const fn = value as (...args: unknown[]) => unknown;
        const operation = typeof property === 'string' ? operations[property] : undefined;
        // Every method runs on the storage itself, never on the proxy: backends keep #private state.
        bound = operation
          ? (...args: unknown[]): unknown => {
              const series = metrics.storageDuration.labels({ operation, type: keyType(args[0]) });
              const start = performance.now();
              const end = (): void => series.observe((performance.now() - start) / 1000);
              const result = fn.apply(target, args);
              if (result instanceof Promise) return result.finally(end);
              end();
              return result;
            }
          : fn.bind(target);
        wrapped.set(property, bound);
      }
      return bound;
    },
  });
}

export interface CountedResource {
  /** The label: `<resource>.<group>` or `<resource>`. */
  name: string;
  /** The storage prefix of all its objects. */
  prefix: string;
}

/**
 * Counts each resource's stored objects every `intervalMs` (upstream: every minute) with a
 * one-item list, whose remaining count says how many follow. Failures leave the last count.
 */
export class ObjectCounter {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  /** The resources counted last round: a resource no longer served loses its series. */
  private counted = new Set<string>();
  /** The last count of each prefix. */
  private readonly counts = new Map<string, number>();
  /** The last count of each resource by its name (<resource>.<group>), for priority and fairness' list estimates. */
  private readonly countsByName = new Map<string, number>();

  constructor(
    private readonly storage: Storage,
    /** What to count, asked at each round: custom resources come and go. */
    private readonly resources: () => readonly CountedResource[],
    private readonly metrics: ServerMetrics,
    private readonly logger: Logger,
    private readonly intervalMs = 60_000,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.countAll();
    this.timer = setInterval(() => void this.countAll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The objects below a resource's prefix when last counted (undefined: not counted yet). */
  countOf(prefix: string): number | undefined {
    return this.counts.get(prefix);
  }

  /** The objects of a resource named as upstream's GroupResource.String() when last counted (undefined: not counted yet). */
  countOfResource(name: string): number | undefined {
    return this.countsByName.get(name);
  }

  async countAll(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const resources = this.resources();
      const names = new Set(resources.map((r) => r.name));
      for (const gone of this.counted) {
        if (names.has(gone)) continue;
        this.metrics.storageObjects.remove({ resource: gone });
        this.countsByName.delete(gone);
      }
      this.counted = names;
      for (const resource of resources) {
        try {
          const list = await this.storage.list(resource.prefix, { limit: 1 });
          const count = list.items.length + (list.continue ? (list.remainingItemCount ?? 0) : 0);
          this.metrics.storageObjects.set({ resource: resource.name }, count);
          this.counts.set(resource.prefix, count);
          this.countsByName.set(resource.name, count);
        } catch (err) {
          this.logger.debug({ err, resource: resource.name }, 'counting stored objects failed');
        }
      }
    } finally {
      this.running = false;
    }
  }
}
