// Resource requests: from request info to the verb handler, with upstream's 404 and 405 answers.
import { newGenericServerResponse, newMethodNotSupported, newNotAcceptable, newNotImplemented } from '@plat/apimachinery';
import type { Verb } from '@plat/registry';
import type { Handler } from '@plat/filters';
import type { RequestInfo } from '@plat/filters';
import { markDeprecated } from './deprecation.js';
import { subresourceVerbs } from './discovery.js';
import type { ResourceCatalog, ServedResource } from './catalog.js';
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

/**
 * What upstream's router answers for a method it has no route for on the path: a 405 with the stock
 * message (go-restful's, through the API server's service error handler).
 */
const methodNotAllowed = () => newGenericServerResponse(405);

/** Verbs on one object's path, and on a collection's, as upstream registers their routes. */
const OBJECT_VERBS: ReadonlySet<string> = new Set(['get', 'watch', 'update', 'patch', 'delete']);
const COLLECTION_VERBS: ReadonlySet<string> = new Set(['list', 'watch', 'create', 'deletecollection']);

/** Whether the path names one object (info.name may also come from a list's fieldSelector). */
const pathNamesObject = (info: RequestInfo): boolean => info.parts.length >= 2;

/** Whether the path's form (a collection, or one object by name) has a route for the verb. */
const pathServes = (info: RequestInfo, verb: Verb): boolean => (pathNamesObject(info) ? OBJECT_VERBS : COLLECTION_VERBS).has(verb);

/**
 * Kinds served as another resource's subresource (TokenRequest as serviceaccounts/{name}/token),
 * by the parent's `group/version/resource/subresource` (`/v1/serviceaccounts/token`).
 */
export type ForeignSubresources = ReadonlyMap<string, ServedResource>;

export const virtualSubresourceKey = (group: string, version: string, resource: string, subresource: string): string =>
  `${group}/${version}/${resource}/${subresource}`;

export function resourceHandler(catalog: ResourceCatalog, services: ServerServices, foreign: ForeignSubresources = new Map()): Handler {
  return async (ctx) => {
    const info = ctx.state.requestInfo;
    const group = info.apiPrefix === 'api' ? '' : info.apiGroup;
    const parent = catalog.find(group, info.apiVersion, info.resource);
    // A cluster-scoped resource has no path under a namespace, but for a namespace's own
    // (/namespaces/{name}[/{subresource}]).
    const ownNamespacePath = info.resource === 'namespaces' && info.parts[1] === info.namespace;
    if (!parent || (!parent.resolved.namespaced && info.namespace && !ownNamespacePath)) {
      throw newGenericServerResponse(404);
    }
    if (parent.resolved.definition.deprecated) markDeprecated(ctx, parent.resolved, info.subresource, services.domain, services.metrics);
    const verb = info.verb as Verb;
    const query = newQuery(ctx);
    let served = parent;
    let effectiveVerb = verb;
    const notImplemented = info.subresource ? parent.resolved.definition.notImplementedSubresources?.[info.subresource] : undefined;
    if (notImplemented && info.name && (info.namespace || !parent.resolved.namespaced)) {
      const { groupResource } = parent.resolved;
      throw newNotImplemented(groupResource, info.name, `${info.resource}/${info.subresource} is not supported by this server: ${notImplemented.reason}`);
    }
    if (info.subresource && !parent.resolved.definition.subresources?.[info.subresource]) {
      // Another kind served at this subresource: only created (POSTed), by its own store.
      const sub = foreign.get(virtualSubresourceKey(group, info.apiVersion, info.resource, info.subresource));
      if (!sub || (parent.resolved.namespaced && !info.namespace)) throw newGenericServerResponse(404);
      if (verb !== 'create') throw methodNotAllowed();
      served = sub;
    } else {
      effectiveVerb = checkVerb(info, parent, verb, query.boolean('watch'));
      // A subresource served as another kind (scale) is decoded and answered as that kind, by the
      // parent's store.
      const kind = info.subresource ? parent.resolved.subresourceKinds.get(info.subresource) : undefined;
      if (kind) served = { resolved: kind, store: parent.store };
    }
    const { resolved } = served;
    const handler = handlers[effectiveVerb];
    if (!handler) throw methodNotAllowed();
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
    if (representation.type === 'protobuf') ctx.state.protobufErrors = representation.mediaType;
    await handler({ ctx, info, served, query, services, representation, compress });
  };
}

/** The verb a request asks for, once its path and the kind allow it: 405 or 404 otherwise. */
function checkVerb(info: RequestInfo, served: ServedResource, verb: Verb, watchParameter: boolean | undefined): Verb {
  const { resolved } = served;
  const definition = resolved.definition;
  // A watch is asked for with ?watch on a list, whatever the path form.
  // A watch value that is no boolean is still a watch to authorization (request info), but the
  // list handler's decoding refuses it: a 400, as upstream's.
  const effectiveVerb: Verb = verb === 'list' && watchParameter ? 'watch' : verb;
  const subresource = info.subresource ? definition.subresources?.[info.subresource] : undefined;
  if (subresource && !subresourceVerbs(subresource).includes(effectiveVerb)) throw methodNotAllowed();
  if (!subresource && !pathServes(info, effectiveVerb)) throw methodNotAllowed();
  if (!definition.verbs.includes(effectiveVerb)) {
    // Upstream's list handler refuses a watch of what it lists but cannot watch; other verbs have no route.
    if (effectiveVerb === 'watch' && definition.verbs.includes('list')) throw newMethodNotSupported(resolved.groupResource, 'watch');
    throw methodNotAllowed();
  }
  // Only lists and watches span namespaces; one object is always addressed in its namespace.
  // Upstream's all-namespaces path of a namespaced resource is a collection served for GET only.
  if (resolved.namespaced && !info.namespace && effectiveVerb !== 'list' && effectiveVerb !== 'watch') {
    throw pathNamesObject(info) ? newGenericServerResponse(404) : methodNotAllowed();
  }
  return effectiveVerb;
}
