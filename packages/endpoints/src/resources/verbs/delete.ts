// DELETE of one object: a Success Status (or the object, for kinds that return it), or the object
// marked for deletion while finalizers hold it.
import { writeObject } from '../respond.js';
import { deleteRequest } from './delete-options.js';
import type { VerbScope } from './scope.js';

export async function deleteObject({ ctx, info, served, query, services, representation }: VerbScope): Promise<void> {
  const { resolved, store } = served;
  const request = await deleteRequest(ctx, query, services.domain);
  const { object, deleted } = await store.delete(info.namespace, info.name, request);
  if (!deleted || resolved.definition.deleteReturnsObject) {
    await writeObject(ctx, 200, object, { representation });
    return;
  }
  await writeObject(ctx, 200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: info.name, ...(resolved.group && { group: resolved.group }), kind: resolved.resource, uid: object.metadata.uid },
  }, { representation });
}
