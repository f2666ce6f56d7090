// Resource requests: from request info to the verb handler, with upstream's 404 and 405 answers.
import { newBadRequest, newGenericServerResponse, newInvalid, newMethodNotSupported, newNotAcceptable } from '@plat/apimachinery';
import type { KubeObject, ResolvedResource, Verb, VirtualServices } from '@plat/registry';
import type { Handler, RequestContext } from '../context.js';
import type { RequestInfo } from '../request-info.js';
import { decodeBody } from './body.js';
import { markDeprecated } from './deprecation.js';
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
    if (!served || (!served.resolved.namespaced && info.namespace && info.resource !== 'namespaces')) {
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
      if (verb !== 'create') throw newMethodNotSupported({ group, resource: `${info.resource}/${info.subresource}` }, verb);
      return createVirtual(ctx, info, sub, query, services.domain, virtual!.services);
    }
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
    if (definition.virtual) {
      if (!virtual) throw newGenericServerResponse(404);
      return createVirtual(ctx, info, resolved, query, services.domain, virtual.services);
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
