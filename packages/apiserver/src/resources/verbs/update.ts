// PUT of one object or of a subresource (status, finalize).
import { newBadRequest } from '@plat/apimachinery';
import { decodeBody } from '../body.js';
import { protobufBodyOf } from '../protobuf.js';
import { checkNamespace, objectFromBody } from '../object-input.js';
import { parseWriteOptions } from '../query.js';
import { writeObject } from '../respond.js';
import { managerOf } from './manager.js';
import type { VerbScope } from './scope.js';

export async function updateObject({ ctx, info, served, query, services, representation }: VerbScope): Promise<void> {
  const { resolved, store } = served;
  const { dryRun, fieldManager, fieldValidation } = parseWriteOptions(query, 'UpdateOptions', services.domain);
  const manager = fieldManager ?? managerOf(ctx);
  const object = objectFromBody(ctx, await decodeBody(ctx, protobufBodyOf(resolved, services.domain)), resolved, fieldValidation);
  checkNamespace(object, info.namespace, resolved);
  const name = object.metadata.name;
  if (!name) object.metadata.name = info.name;
  else if (name !== info.name) {
    throw newBadRequest(`the name of the object (${name}) does not match the name on the URL (${info.name})`);
  }
  const { object: stored, created } = await store.update(info.namespace, info.name, object, {
    dryRun,
    manager,
    user: ctx.state.user,
    ...(info.subresource && { subresource: info.subresource }),
  });
  await writeObject(ctx, created ? 201 : 200, stored, { representation });
}
