// Resource requests: from request info to the verb handler, with upstream's 404 and 405 answers.
import { newBadRequest, newGenericServerResponse, newInvalid, newMethodNotSupported, newNotAcceptable } from '@plat/apimachinery';
import type { KubeObject, ResolvedResource, Verb, VirtualServices } from '@plat/registry';
import type { Handler, RequestContext } from '../context.js';
import type { RequestInfo } from '../request-info.js';
import { decodeBody } from './body.js';
import { markDeprecated } from './deprecation.js';
import { subresourceVerbs } from './discovery.js';
import type { ResourceCatalog } from './catalog.js';
import { negotiate, type Representation } from './negotiation.js';
import { objectFromBody } from './object-input.js';
import { protobufBodyOf, protobufMediaType, resourceHasProtobuf } from './protobuf.js';
import { parseWriteOptions, type Query } from './query.js';
import { writeObject } from './respond.js';
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

/** The resources that are never stored: what they may use, and those served as another's subresource. */
export interface VirtualRouting {
  services: VirtualServices;
  /** By the parent's `group/version/resource/subresource` (`/v1/serviceaccounts/token`). */
  subresources: ReadonlyMap<string, ResolvedResource>;
}

export const virtualSubresourceKey = (group: string, version: string, resource: string, subresource: string): string =>
  `${group}/${version}/${resource}/${subresource}`;

export function resourceHandler(catalog: ResourceCatalog, services: ServerServices, virtual?: VirtualRouting): Handler {
  return async (ctx) => {
    const info = ctx.state.requestInfo;
    const group = info.apiPrefix === 'api' ? '' : info.apiGroup;
    const served = catalog.find(group, info.apiVersion, info.resource);
    // A cluster-scoped resource has no path under a namespace, but for a namespace's own
    // (/namespaces/{name}[/{subresource}]).
    const ownNamespacePath = info.resource === 'namespaces' && info.parts[1] === info.namespace;
    if (!served || (!served.resolved.namespaced && info.namespace && !ownNamespacePath)) {
      throw newGenericServerResponse(404);
    }
    const { resolved } = served;
    const definition = resolved.definition;
    if (definition.deprecated) markDeprecated(ctx, resolved, info.subresource, services.domain, services.metrics);
    const verb = info.verb as Verb;
    const query = newQuery(ctx);
    if (info.subresource && !definition.subresources?.[info.subresource]) {
      const sub = virtual?.subresources.get(virtualSubresourceKey(group, info.apiVersion, info.resource, info.subresource));
      if (!sub || (resolved.namespaced && !info.namespace)) throw newGenericServerResponse(404);
      if (verb !== 'create') throw methodNotAllowed();
      return createVirtual(ctx, info, sub, query, services.domain, virtual!.services);
    }
    // A watch is asked for with ?watch on a list, whatever the path form.
    // A watch value that is no boolean is still a watch to authorization (request info), but the
    // list handler's decoding refuses it: a 400, as upstream's.
    const watchParameter = query.boolean('watch');
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
    if (definition.virtual) {
      if (!virtual) throw newGenericServerResponse(404);
      return createVirtual(ctx, info, resolved, query, services.domain, virtual.services);
    }
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

/**
 * POST of a resource that is never stored: the body is decoded and checked as for any create
 * (schema, fieldValidation, namespace, the kind's defaults and validation), then the kind's
 * virtual.create fills it in, and the result is answered with 201.
 */
async function createVirtual(
  ctx: RequestContext,
  info: RequestInfo,
  resolved: ResolvedResource,
  query: Query,
  domain: string,
  services: VirtualServices,
): Promise<void> {
  const definition = resolved.definition;
  const representation: Representation = negotiate(ctx.get('accept'), {
    metaGroup: `meta.${domain}`,
    ...(resourceHasProtobuf(resolved) && { protobuf: protobufMediaType(domain) }),
    transforms: false,
    partialKind: 'PartialObjectMetadata',
  });
  const { dryRun, fieldValidation } = parseWriteOptions(query, 'CreateOptions', domain);
  const object: KubeObject = objectFromBody(ctx, await decodeBody(ctx, protobufBodyOf(resolved, domain)), resolved, fieldValidation);
  // Upstream's EnsureObjectNamespaceMatchesRequestNamespace: empty takes the request's namespace;
  // a cluster-scoped object has none.
  const namespace = resolved.namespaced ? info.namespace : '';
  const given = object.metadata.namespace;
  if (given && namespace && given !== namespace) {
    throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (namespace) object.metadata.namespace = namespace;
  else delete object.metadata.namespace;
  object.apiVersion = resolved.apiVersion;
  object.kind = resolved.kind;
  const context = { domain };
  definition.strategy.prepareForCreate?.(object, context);
  definition.strategy.default?.(object, context);
  const errors = definition.strategy.validate(object, context);
  if (errors.length) throw newInvalid(resolved.groupKind, '', errors);
  const result = await definition.virtual!.create(object, {
    domain,
    namespace,
    name: info.subresource ? info.name : '',
    user: ctx.state.user,
    dryRun: !!dryRun,
    services,
  });
  // In Go's field order: type, metadata, then the kind's own fields.
  const { kind, apiVersion, metadata, ...fields } = result;
  await writeObject(ctx, 201, { kind, apiVersion, metadata, ...fields }, { representation });
}
