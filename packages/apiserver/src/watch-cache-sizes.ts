// --watch-cache-sizes as kube-apiserver 1.28 reads it: `resource[.group]#size` entries. Watch caches
// size themselves, so the one size that means anything is 0: that resource is served without a
// watch cache (its reads and watches go to the store, as with --watch-cache=false for it alone).
import { groupInDomain } from './runtime-config.js';

export interface WatchCacheSize {
  /** Lowercase plural, no version. */
  resource: string;
  /** '' for the core group; a group in the k8s.io form stands for the same group under --api-domain. */
  group: string;
  size: number;
}

/** kube-apiserver's own entries, before the flag's: Events have no watch cache unless asked (for memory). */
export const DEFAULT_WATCH_CACHE_SIZES: readonly WatchCacheSize[] = [
  { resource: 'events', group: '', size: 0 },
  { resource: 'events', group: 'events.k8s.io', size: 0 },
];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.Atoi on a 64-bit machine: an optional sign and decimal digits, within int64. */
function goAtoi(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : Number(value);
}

/** The flag's entries in order; throws an Error with upstream's message for the first bad one. */
export function parseWatchCacheSizes(entries: readonly string[]): WatchCacheSize[] {
  return entries.map((entry) => {
    const tokens = entry.split('#');
    if (tokens.length !== 2) throw new Error(`invalid value of watch cache size: ${entry}`);
    const [name, sizeText] = tokens as [string, string];
    const size = goAtoi(sizeText);
    if (size === undefined) throw new Error(`invalid size of watch cache size: ${entry}`);
    if (size < 0) throw new Error(`watch cache size cannot be negative: ${entry}`);
    // apimachinery's ParseGroupResource: the resource up to the first dot, the group after it.
    const dot = name.indexOf('.');
    return dot < 0 ? { resource: name, group: '', size } : { resource: name.slice(0, dot), group: name.slice(dot + 1), size };
  });
}

/** `resource.group`, or `resource` for the core group: how upstream names a GroupResource. */
export const groupResourceName = (group: string, resource: string): string => (group ? `${resource}.${group}` : resource);

/**
 * What the entries decide, the last for a resource winning: whether a resource is served without a
 * watch cache (size 0), and the resources named with another size, which only keep their cache.
 */
export class WatchCacheSizes {
  private readonly sizes = new Map<string, number>();

  constructor(entries: readonly WatchCacheSize[], domain: string) {
    for (const { resource, group, size } of entries) this.sizes.set(groupResourceName(groupInDomain(group, domain), resource), size);
  }

  /** Whether the resource (its group as served) is to have no watch cache. */
  disables(group: string, resource: string): boolean {
    return this.sizes.get(groupResourceName(group, resource)) === 0;
  }

  /** The size given for the resource, if any. */
  sizeOf(group: string, resource: string): number | undefined {
    return this.sizes.get(groupResourceName(group, resource));
  }
}
