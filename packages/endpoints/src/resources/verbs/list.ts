// GET of a collection: selectors, paging and resourceVersion semantics are the store's; what the
// list will hold in memory is reserved first (@plat/filters' list-budget.ts), or the list is refused with 429.
import { newTooManyRequests } from '@plat/apimachinery';
import { listSemantic, type ListQueryWithSelectors } from '@plat/registry';
import { listCost } from '@plat/filters';
import { TOO_MANY_REQUESTS_MESSAGE } from '@plat/filters';
import type { Query } from '../query.js';
import { STREAMED_LIST_MIN_ITEMS } from '../list-stream.js';
import { isPretty } from '../respond.js';
import { presentList } from './present.js';
import type { VerbScope } from './scope.js';

export function listQuery(query: Query): ListQueryWithSelectors {
  // Decoded for a list too, as upstream's ListOptions decoding does: a bad value is a 400 whatever the verb.
  query.int64('timeoutSeconds');
  query.boolean('allowWatchBookmarks');
  const defined = <K extends keyof ListQueryWithSelectors>(key: K, value: ListQueryWithSelectors[K] | undefined) =>
    value === undefined ? {} : { [key]: value };
  return {
    ...defined('labelSelector', query.string('labelSelector')),
    ...defined('fieldSelector', query.string('fieldSelector')),
    ...defined('limit', listLimit(query.int64('limit'))),
    ...defined('continue', query.string('continue') || undefined),
    ...defined('resourceVersion', query.string('resourceVersion')),
    ...defined('resourceVersionMatch', query.string('resourceVersionMatch') || undefined),
    ...defined('sendInitialEvents', query.boolean('sendInitialEvents')),
  };
}

/**
 * The limit as a number: exact where a number holds it; past that, the furthest a number goes,
 * which lists the same (every collection is shorter). 0 or below lists everything, as upstream.
 */
function listLimit(limit: bigint | undefined): number | undefined {
  if (limit === undefined) return undefined;
  return limit > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : limit < 0n ? -1 : Number(limit);
}

export async function listObjects(scope: VerbScope): Promise<void> {
  const query = listQuery(scope.query);
  const release = reserveListMemory(scope, query);
  scope.ctx.res.once('close', release);
  const list = await scope.served.store.list(scope.info.namespace, query);
  await presentList(scope, list);
}

/**
 * Reserves what the list is estimated to hold; throws 429 (Retry-After: 1) when it does not fit.
 * `written` says how it goes out when the representation does not decide it (a watch's initial
 * state is written in slices whatever it is).
 */
export function reserveListMemory(scope: VerbScope, query: ListQueryWithSelectors, written?: 'streamed'): () => void {
  const { services, served, info, representation } = scope;
  const prefix = served.resolved.prefix(info.namespace);
  const stored = services.objectCount(prefix) ?? services.objectCount(served.resolved.prefix('')) ?? 0;
  let semantic: ReturnType<typeof listSemantic>['kind'];
  try {
    semantic = listSemantic(query).kind;
  } catch {
    return () => {}; // the store refuses the query itself (400)
  }
  const limit = Math.max(0, query.limit ?? 0);
  // The watch cache answers lists of any state whole (the limit ignored), unpaged ones not older
  // than a revision, and current unpaged ones where ConsistentListFromCache is on.
  const cache = services.listsFromCache(served.resolved);
  const fromCache = cache.any && (semantic === 'any' || (limit === 0 && (semantic === 'notOlderThan' || (semantic === 'latest' && cache.consistent))));
  const items = limit > 0 && !fromCache ? Math.min(limit, stored) : stored;
  // JSON lists, Tables and metadata-only lists are written in chunks unless asked indented.
  const chunked = written === 'streamed' || representation.type === 'protobuf' || (representation.type !== 'yaml' && !isPretty(scope.ctx));
  const cost = listCost({
    items,
    bytesPerItem: services.listBudget.averageItemBytes(served.resolved.prefix(''), () => services.sampleObjects(served.resolved.prefix(''))),
    streamed: written === 'streamed' || (chunked && items >= STREAMED_LIST_MIN_ITEMS),
    fromStore: !fromCache,
  });
  const release = services.listBudget.reserve(cost);
  if (!release) {
    const { group, resource } = served.resolved;
    services.metrics.listMemoryRejected.inc({ resource: group ? `${resource}.${group}` : resource });
    scope.ctx.state.terminated = true;
    throw newTooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1);
  }
  return release;
}
