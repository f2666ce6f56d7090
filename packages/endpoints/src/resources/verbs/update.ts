// PUT of one object or of a subresource (status, finalize; scale, whose body is a Scale).
import { objectFromInput } from '@plat/registry';
import { decodeBody } from '../body.js';
import { protobufBodyOf } from '../protobuf.js';
import { operationOptions, parseWriteOptions } from '../query.js';
import { addWarnings, auditAnnotationSink, warningSink, writeObject } from '../respond.js';
import { managerOf } from './manager.js';
import type { VerbScope } from './scope.js';

export async function updateObject({ ctx, info, served, query, services, representation }: VerbScope): Promise<void> {
  const { resolved, store } = served;
  const { dryRun, fieldManager, fieldValidation } = parseWriteOptions(query, 'UpdateOptions', services.domain);
  const manager = fieldManager ?? managerOf(ctx);
  const { object, warnings } = objectFromInput(resolved, await decodeBody(ctx, protobufBodyOf(resolved, services.domain)), fieldValidation);
  addWarnings(ctx, warnings);
  const options = {
    dryRun,
    manager,
    user: ctx.state.user,
    warn: warningSink(ctx),
    annotate: auditAnnotationSink(ctx),
    operationOptions: operationOptions('UpdateOptions', services.domain, { dryRun: query.all('dryRun'), fieldManager, fieldValidation: query.string('fieldValidation') }),
  };
  const { object: stored, created } = info.subresource
    ? await store.updateSubresource(info.namespace, info.name, info.subresource, object, options)
    : await store.update(info.namespace, info.name, object, options);
  await writeObject(ctx, created ? 201 : 200, stored, { representation });
}
