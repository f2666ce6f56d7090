// GET of one object (or of a subresource that shows the whole object, such as status).
import { presentObject } from './present.js';
import type { VerbScope } from './scope.js';

export async function getObject(scope: VerbScope): Promise<void> {
  const { info, served, query } = scope;
  const object = await served.store.get(info.namespace, info.name, query.string('resourceVersion'));
  await presentObject(scope, 200, object);
}
