// POST to a collection, or to a subresource that makes something (serviceaccounts/{name}/token).
import { objectFromInput } from '@plat/registry';
import { decodeBody } from '../body.js';
import { protobufBodyOf } from '../protobuf.js';
import { operationOptions, parseWriteOptions } from '../query.js';
import { addWarnings, auditAnnotationSink, warningSink, writeObject } from '../respond.js';
import { managerOf } from './manager.js';
import type { VerbScope } from './scope.js';

export async function createObject({ ctx, info, served, query, services, representation }: VerbScope): Promise<void> {
  const { resolved, store } = served;
  const { dryRun, fieldManager, fieldValidation } = parseWriteOptions(query, 'CreateOptions', services.domain);
  const manager = fieldManager ?? managerOf(ctx);
  const { object, warnings } = objectFromInput(resolved, await decodeBody(ctx, protobufBodyOf(resolved, services.domain)), fieldValidation);
  addWarnings(ctx, warnings);
  const created = await store.create(info.namespace, object, {
    dryRun,
    manager,
    user: ctx.state.user,
    warn: warningSink(ctx),
    annotate: auditAnnotationSink(ctx),
    operationOptions: operationOptions('CreateOptions', services.domain, { dryRun: query.all('dryRun'), fieldManager, fieldValidation: query.string('fieldValidation') }),
    ...(info.subresource && { parentName: info.name }),
  });
  await writeObject(ctx, 201, created, { representation });
}
