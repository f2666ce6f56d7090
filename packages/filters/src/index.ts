// Serving a request up to its handler: the secure port (http-server.ts: HTTP/2 and HTTP/1.1 on one
// TLS listener; connection-errors.ts; request-tracker.ts for shutdown), the request context every
// handler is given (context.ts, request-info.ts, status-response.ts), the koa application and its
// filter chain as data (app.ts, filter-chain.ts, one filter a file in filters/), what the filters
// and handlers enforce (limits.ts: in-flight and per-user rates; list-budget.ts), the handler mux
// (mux.ts) and the health endpoints (health.ts).
export { createApp } from './app.js';
export { handleConnectionErrors, MAX_HEADER_BYTES } from './connection-errors.js';
export { type Handler, type RequestContext, type RequestState } from './context.js';
export { type NamedFilter } from './filter-chain.js';
export {
  FLOW_SCHEMA_UID_HEADER,
  PRIORITY_LEVEL_UID_HEADER,
  WatchTracker,
  priorityAndFairnessFilter,
  type FlowControlObserver,
  type PriorityAndFairnessOptions,
} from './filters/priority-and-fairness.js';
export { type HealthCheck, healthHandler, pingCheck, ShutdownCheck, singleCheckHandler, storageCheck } from './health.js';
export { type AnyResponse, createSecurePort, DEFAULT_HTTP2_MAX_STREAMS, isHttp2, type SecurePort } from './http-server.js';
export { type LimitOptions, newUserRateLimiter, TOO_MANY_REQUESTS_MESSAGE, type UserRateLimiter } from './limits.js';
export { listCost, ListMemoryBudget } from './list-budget.js';
export { PathMux } from './mux.js';
export { type RequestInfo } from './request-info.js';
export { RequestTracker } from './request-tracker.js';
