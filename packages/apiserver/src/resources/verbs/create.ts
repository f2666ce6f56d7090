// POST to a collection.
import { decodeBody } from '../body.js';
import { protobufBodyOf } from '../protobuf.js';
import { checkNamespace, objectFromBody } from '../object-input.js';
import { parseWriteOptions } from '../query.js';
import { writeObject } from '../respond.js';
import { managerOf } from './manager.js';
import type { VerbScope } from './scope.js';

export async function createObject({ ctx, info, served, query, services, representation }: VerbScope): Promise<void> {
  const { resolved, store } = served;
  const { dryRun, fieldManager, fieldValidation } = parseWriteOptions(query, 'CreateOptions', services.domain);
  const manager = fieldManager ?? managerOf(ctx);
  const object = objectFromBody(ctx, await decodeBody(ctx, protobufBodyOf(resolved, services.domain)), resolved, fieldValidation);
  checkNamespace(object, info.namespace, resolved);
  const created = await store.create(info.namespace, object, { dryRun, manager, user: ctx.state.user });
  await writeObject(ctx, 201, created, { representation });
}
