// GET of a collection: selectors, paging and resourceVersion semantics are the store's.
import type { ListQueryWithSelectors } from '@plat/registry';
import type { Query } from '../query.js';
import { presentList } from './present.js';
import type { VerbScope } from './scope.js';

export function listQuery(query: Query): ListQueryWithSelectors {
  // Decoded for a list too, as upstream's ListOptions decoding does: a bad value is a 400 whatever the verb.
  query.integer('timeoutSeconds');
  query.boolean('allowWatchBookmarks');
  const defined = <K extends keyof ListQueryWithSelectors>(key: K, value: ListQueryWithSelectors[K] | undefined) =>
    value === undefined ? {} : { [key]: value };
  return {
    ...defined('labelSelector', query.string('labelSelector')),
    ...defined('fieldSelector', query.string('fieldSelector')),
    ...defined('limit', query.integer('limit')),
    ...defined('continue', query.string('continue') || undefined),
    ...defined('resourceVersion', query.string('resourceVersion')),
    ...defined('resourceVersionMatch', query.string('resourceVersionMatch') || undefined),
    ...defined('sendInitialEvents', query.boolean('sendInitialEvents')),
  };
}

export async function listObjects(scope: VerbScope): Promise<void> {
  const list = await scope.served.store.list(scope.info.namespace, listQuery(scope.query));
  await presentList(scope, list);
}
