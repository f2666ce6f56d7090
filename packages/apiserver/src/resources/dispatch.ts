// Resource requests: from request info to the verb handler, with upstream's 404 and 405 answers.
import { newGenericServerResponse, newMethodNotSupported, newNotAcceptable } from '@plat/apimachinery';
import type { Verb } from '@plat/registry';
import type { Handler } from '../context.js';
import type { ResourceCatalog } from './catalog.js';
import { negotiate } from './negotiation.js';
import { protobufMediaType, resourceHasProtobuf } from './protobuf.js';
import { createObject } from './verbs/create.js';
import { deleteCollection } from './verbs/delete-collection.js';
import { deleteObject } from './verbs/delete.js';
import { getObject } from './verbs/get.js';
import { listObjects } from './verbs/list.js';
import { newQuery, type ServerServices, type VerbScope } from './verbs/scope.js';
import { updateObject } from './verbs/update.js';
import { patchObject } from './verbs/patch.js';
import { watchObjects } from './verbs/watch.js';

const handlers: Partial<Record<Verb, (scope: VerbScope) => Promise<void>>> = {
  get: getObject,
  list: listObjects,
  watch: watchObjects,
  create: createObject,
  update: updateObject,
  patch: patchObject,
  delete: deleteObject,
  deletecollection: deleteCollection,
};

export function resourceHandler(catalog: ResourceCatalog, services: ServerServices): Handler {
  return async (ctx) => {
    const info = ctx.state.requestInfo;
    const group = info.apiPrefix === 'api' ? '' : info.apiGroup;
    const served = catalog.find(group, info.apiVersion, info.resource);
    if (!served || (!served.resolved.namespaced && info.namespace && info.resource !== 'namespaces')) {
      throw newGenericServerResponse(404);
    }
    const { resolved } = served;
    const definition = resolved.definition;
    if (info.subresource && !definition.subresources?.[info.subresource]) throw newGenericServerResponse(404);
    const verb = info.verb as Verb;
    const query = newQuery(ctx);
    // A watch is asked for with ?watch on a list, whatever the path form.
    const effectiveVerb: Verb = verb === 'list' && query.boolean('watch') ? 'watch' : verb;
    if (info.subresource && !['get', 'update', 'patch'].includes(effectiveVerb)) {
      throw newMethodNotSupported(resolved.groupResource, effectiveVerb);
    }
    if (!definition.verbs.includes(effectiveVerb)) throw newMethodNotSupported(resolved.groupResource, effectiveVerb);
    // Only lists and watches span namespaces; one object is always addressed in its namespace.
    if (resolved.namespaced && !info.namespace && effectiveVerb !== 'list' && effectiveVerb !== 'watch') {
      throw newGenericServerResponse(404);
    }
    const handler = handlers[effectiveVerb];
    if (!handler) throw newMethodNotSupported(resolved.groupResource, effectiveVerb);
    const reads = effectiveVerb === 'get' || effectiveVerb === 'list' || effectiveVerb === 'watch';
    const representation = negotiate(ctx.get('accept'), {
      metaGroup: `meta.${services.domain}`,
      ...(resourceHasProtobuf(resolved) && { protobuf: protobufMediaType(services.domain) }),
      transforms: reads,
      partialKind: effectiveVerb === 'get' ? 'PartialObjectMetadata' : 'PartialObjectMetadataList',
    });
    // A watch streams JSON (a Table per event) or Protobuf frames; YAML is not a stream format.
    if (effectiveVerb === 'watch' && representation.type === 'yaml') {
      throw newNotAcceptable(['application/json', ...(resourceHasProtobuf(resolved) ? [protobufMediaType(services.domain)] : [])]);
    }
    const compress = services.responseCompression && (effectiveVerb === 'get' || effectiveVerb === 'list');
    await handler({ ctx, info, served, query, services, representation, compress });
  };
}
