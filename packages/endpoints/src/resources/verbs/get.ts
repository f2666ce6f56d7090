// GET of one object, or of a subresource: the whole object (status), or the object of the kind it is
// served as (scale).
import { presentObject } from './present.js';
import type { VerbScope } from './scope.js';

export async function getObject(scope: VerbScope): Promise<void> {
  const { info, served, query } = scope;
  const resourceVersion = query.string('resourceVersion');
  const object = info.subresource
    ? await served.store.getSubresource(info.namespace, info.name, info.subresource, resourceVersion)
    : await served.store.get(info.namespace, info.name, resourceVersion);
  await presentObject(scope, 200, object);
}
