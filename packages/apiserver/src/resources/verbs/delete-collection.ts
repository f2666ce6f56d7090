// DELETE of a collection: every object the selectors pick, as DELETE would.
import { writeObject } from '../respond.js';
import { deleteRequest } from './delete-options.js';
import { listQuery } from './list.js';
import type { VerbScope } from './scope.js';

export async function deleteCollection({ ctx, info, served, query, services, representation }: VerbScope): Promise<void> {
  const request = await deleteRequest(ctx, query, services.domain);
  await served.store.deleteCollection(info.namespace, listQuery(query), request);
  await writeObject(ctx, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: {} }, { representation });
}
