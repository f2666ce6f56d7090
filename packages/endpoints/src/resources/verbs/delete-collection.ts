// DELETE of a collection: every object the selectors pick, as DELETE would. The answer is the list
// of what was picked, presented as a list (Table and metadata-only forms included), as upstream's.
import { deleteRequest } from './delete-options.js';
import { listQuery } from './list.js';
import { presentList } from './present.js';
import type { VerbScope } from './scope.js';

export async function deleteCollection(scope: VerbScope): Promise<void> {
  const { ctx, info, served, query, services } = scope;
  const request = await deleteRequest(ctx, query, services.domain);
  await presentList(scope, await served.store.deleteCollection(info.namespace, listQuery(query), request));
}
