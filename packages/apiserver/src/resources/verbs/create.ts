// POST to a collection.
import { newMethodNotSupported } from '@plat/apimachinery';
import { decodeJsonBody } from '../body.js';
import { checkNamespace, objectFromBody } from '../object-input.js';
import { parseDryRun, parseFieldManager, parseFieldValidation } from '../query.js';
import { writeObject } from '../respond.js';
import type { VerbScope } from './scope.js';

export async function createObject({ ctx, info, served, query, services, representation }: VerbScope): Promise<void> {
  const { resolved, store } = served;
  if (resolved.namespaced && !info.namespace) throw newMethodNotSupported(resolved.groupResource, 'create');
  const dryRun = parseDryRun(query);
  // Validated now; ownership by manager comes with server-side apply.
  parseFieldManager(query, 'CreateOptions', services.domain);
  const object = objectFromBody(ctx, await decodeJsonBody(ctx), resolved, parseFieldValidation(query));
  checkNamespace(object, info.namespace, resolved);
  const created = await store.create(info.namespace, object, { dryRun });
  await writeObject(ctx, 201, created, { representation });
}
