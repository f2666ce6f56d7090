// The resource API's endpoints on the mux: discovery, OpenAPI, and every resource's verbs (the
// never-stored subresources, serviceaccounts/token, among them).
import { resolveGroup, type KubeObject, type ResolvedResource, type ResourceDefinition } from '@plat/registry';
import type { ServerResponse } from 'node:http';
import { ListMemoryBudget } from '@plat/filters';
import type { ServerMetrics } from '@plat/metrics';
import type { PathMux } from '@plat/filters';
import { OpenAPI } from '@plat/endpoints';
import type { ResourceCatalog, ServedResource } from '@plat/endpoints';
import { Discovery, type ForeignSubresource } from '@plat/endpoints';
import { resourceHandler, virtualSubresourceKey } from '@plat/endpoints';
import { DEFAULT_WATCH_BACKLOG_BYTES } from '@plat/endpoints';
import type { ApiOptions } from '../options.js';
import type { WatchCacheWiring } from '../storage.js';

/** Objects weighed for a resource's first list estimate (@plat/filters' list-budget.ts): a few, spread through it. */
const OBJECTS_SAMPLED_FOR_SIZE = 16;

export interface EndpointSources {
  catalog: ResourceCatalog;
  /** Kinds served as a subresource of another (virtual.subresourceOf): serviceaccounts/token where tokens are issued. */
  subresourceDefinitions: readonly ResourceDefinition[];
  mux: PathMux;
  metrics: ServerMetrics;
  registerLongRunning: (res: ServerResponse, end: () => void) => () => void;
  watchCache: WatchCacheWiring | undefined;
  /** Whether a resource is served from the watch cache. */
  cachedResource: (resolved: ResolvedResource) => boolean;
  /** Objects stored below a prefix, as last counted (apiserver_storage_objects). */
  countedObjects: (prefix: string) => number | undefined;
}

export function serveEndpoints(api: ApiOptions, sources: EndpointSources): void {
  const { catalog, subresourceDefinitions, mux, metrics, watchCache, cachedResource } = sources;
  const subresources = new Map<string, ServedResource>();
  const foreign: ForeignSubresource[] = [];
  for (const definition of subresourceDefinitions) {
    const parent = definition.virtual?.subresourceOf;
    if (!parent) throw new Error(`${definition.kind} is not a subresource (virtual.subresourceOf)`);
    const served = catalog.serve(definition as ResourceDefinition<KubeObject>);
    subresources.set(virtualSubresourceKey(parent.group, parent.version, parent.resource, parent.subresource), served);
    foreign.push({ parent: { ...parent, group: resolveGroup(parent.group, api.domain) }, subresource: parent.subresource, resolved: served.resolved, verbs: ['create'] });
  }
  const discovery = new Discovery(catalog, api.domain, foreign);
  mux.handleDynamic((path) => discovery.handlerFor(path));
  const openapi = new OpenAPI(catalog, api.domain);
  for (const [path, handler] of openapi.handlers()) mux.handle(path, handler);
  mux.handleDynamic((path) => openapi.handlerFor(path));
  mux.handleResources(
    resourceHandler(
      catalog,
      {
        domain: api.domain,
        registerLongRunning: sources.registerLongRunning,
        bookmarkIntervalMs: api.bookmarkIntervalMs ?? 60_000,
        minRequestTimeoutS: api.minRequestTimeoutS ?? 1800,
        watchBacklogBytes: api.watchBacklogBytes ?? DEFAULT_WATCH_BACKLOG_BYTES,
        responseCompression: api.responseCompression ?? true,
        metrics,
        listBudget: api.listMemoryBudget ?? new ListMemoryBudget(),
        objectCount: (prefix) => watchCache?.cache.objectCount(prefix) ?? sources.countedObjects(prefix),
        sampleObjects: (prefix) => watchCache?.cache.sampleObjects(prefix, OBJECTS_SAMPLED_FOR_SIZE),
        listsFromCache: (resolved) => {
          const cached = cachedResource(resolved);
          return { any: cached, consistent: cached && (watchCache?.cache.servesConsistentLists ?? false) };
        },
      },
      subresources,
    ),
  );
}
