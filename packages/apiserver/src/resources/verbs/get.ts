// GET of one object (or of a subresource that shows the whole object, such as status).
import { writeObject } from '../respond.js';
import type { VerbScope } from './scope.js';

export async function getObject({ ctx, info, served, query }: VerbScope): Promise<void> {
  const object = await served.store.get(info.namespace, info.name, query.string('resourceVersion'));
  writeObject(ctx, 200, object);
}
