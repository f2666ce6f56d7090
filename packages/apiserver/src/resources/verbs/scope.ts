// What every verb handler is given: the request, the resource it addresses, and server services.
import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../../context.js';
import type { RequestInfo } from '../../request-info.js';
import type { ServedResource } from '../catalog.js';
import { Query } from '../query.js';

export interface ServerServices {
  domain: string;
  /** Registers a long-running response so that graceful shutdown ends it; returns the unregister. */
  registerLongRunning(res: ServerResponse, end: () => void): () => void;
  bookmarkIntervalMs: number;
}

export interface VerbScope {
  ctx: RequestContext;
  info: RequestInfo;
  served: ServedResource;
  query: Query;
  services: ServerServices;
}

export const newQuery = (ctx: RequestContext): Query => new Query(new URLSearchParams(ctx.querystring));
