// What every verb handler is given: the request, the resource it addresses, and server services.
import type { ServerResponse } from 'node:http';
import type { RequestContext } from '@plat/filters';
import type { RequestInfo } from '@plat/filters';
import type { ResolvedResource } from '@plat/registry';
import type { ServedResource } from '../catalog.js';
import type { ServerMetrics } from '@plat/metrics';
import type { ListMemoryBudget } from '@plat/filters';
import type { Representation } from '../negotiation.js';
import { Query } from '../query.js';

export interface ServerServices {
  domain: string;
  /** Registers a long-running response so that graceful shutdown ends it; returns the unregister. */
  registerLongRunning(res: ServerResponse, end: () => void): () => void;
  bookmarkIntervalMs: number;
  /** --min-request-timeout in seconds: a watch without timeoutSeconds ends between it and twice it. */
  minRequestTimeoutS: number;
  /** How far behind, in bytes, a watcher may fall before it is closed (verbs/watch-backlog.ts). */
  watchBacklogBytes: number;
  /** APIResponseCompression: gzip large get and list responses for clients that accept it. */
  responseCompression: boolean;
  metrics: ServerMetrics;
  /** What lists may hold in memory between them (@plat/filters' list-budget.ts). */
  listBudget: ListMemoryBudget;
  /** How many objects are stored below a prefix, as far as known without reading the store. */
  objectCount(prefix: string): number | undefined;
  /** A few of the objects below `prefix`, spread through them (from the watch cache), if it has them at hand. */
  sampleObjects(prefix: string): readonly object[] | undefined;
  /**
   * Which lists of a resource come from the watch cache: of any state (resourceVersion=0), and
   * current unpaged ones (ConsistentListFromCache). None of a resource served without one.
   */
  listsFromCache(resolved: ResolvedResource): { any: boolean; consistent: boolean };
}

export interface VerbScope {
  ctx: RequestContext;
  info: RequestInfo;
  served: ServedResource;
  query: Query;
  services: ServerServices;
  /** What the client's Accept header chose. */
  representation: Representation;
  /** Whether this response may be gzipped (get and list, with the feature on). */
  compress: boolean;
}

export const newQuery = (ctx: RequestContext): Query => new Query(new URLSearchParams(ctx.querystring));
