// The koa application: the filter chain every request passes (filters/, one file each), in
// upstream's order, ending in the handler mux.
import Koa from 'koa';
import type { Logger } from 'pino';
import type { AuthenticationOptions } from './authentication.js';
import type { Authorizer } from './authorization.js';
import type { Middleware, RequestState } from './context.js';
import { authenticationFilter } from './filters/authentication.js';
import { auditRequestReceivedFilter } from './filters/audit.js';
import { authorizationFilter } from './filters/authorization.js';
import { errorHandler } from './filters/error-handler.js';
import { impersonationFilter } from './filters/impersonation.js';
import { inflightFilter, userRateFilter } from './filters/limits.js';
import { metricsFilter } from './filters/metrics.js';
import { requestInfoFilter } from './filters/request-info.js';
import { requestLogFilter } from './filters/request-log.js';
import { timeoutFilter } from './filters/timeout.js';
import type { LimitOptions, UserRateLimiter } from './limits.js';
import type { ServerMetrics } from './metrics.js';
import type { PathMux } from './mux.js';
import type { RequestInfo } from './request-info.js';

export interface AppDependencies {
  logger: Logger;
  metrics: ServerMetrics;
  authentication: AuthenticationOptions;
  authorizer: Authorizer;
  mux: PathMux;
  /** --api-domain, for the API groups impersonation is authorized in; default plat.io. */
  domain?: string;
  /** Whether a resource request names a resource this server serves (for metric labels). */
  isKnownResource?: (info: RequestInfo) => boolean;
  /** In-flight limits; absent: none. */
  limits?: LimitOptions;
  /** Per-user request rates; absent: none. */
  userRateLimiter?: UserRateLimiter;
  /** --request-timeout: past it, a request other than a watch is answered 504; 0: none. */
  requestTimeoutMs?: number;
  /** Filters run first of all, in order (audit). */
  outerFilters?: readonly Middleware[];
}


/** Client disconnects during a stream reach koa's error event; they are not server errors. */
const ignoredErrorCodes = new Set(['ERR_STREAM_PREMATURE_CLOSE']);

export function createApp({
  logger,
  metrics,
  authentication,
  authorizer,
  mux,
  domain,
  isKnownResource,
  limits,
  userRateLimiter,
  outerFilters,
  requestTimeoutMs,
}: AppDependencies): Koa<RequestState> {
  const app = new Koa<RequestState>();
  // A listener here replaces koa's default, which prints to stderr.
  app.on('error', (error: NodeJS.ErrnoException) => {
    if (!ignoredErrorCodes.has(error.code ?? '')) logger.error({ err: error }, 'unhandled error while serving a request');
  });
  app.use(requestInfoFilter);
  for (const filter of outerFilters ?? []) app.use(filter);
  // Outside the error handler, so that they see the final status of every request.
  app.use(metricsFilter(metrics, isKnownResource ?? (() => false)));
  app.use(requestLogFilter(logger));
  app.use(errorHandler(logger));
  // Inside the error handler (a bad ?timeout= is a 400 Status), outside everything that may take time.
  app.use(timeoutFilter(requestTimeoutMs ?? 0));
  app.use(authenticationFilter(authentication));
  app.use(auditRequestReceivedFilter);
  app.use(impersonationFilter(authorizer, domain ?? 'plat.io'));
  // Limits come after authentication (per-user rates need the user), before authorization.
  app.use(inflightFilter(limits ?? { maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 }, metrics));
  if (userRateLimiter) app.use(userRateFilter(userRateLimiter, metrics));
  app.use(authorizationFilter(authorizer, domain ?? 'plat.io', logger));
  app.use(mux.dispatch());
  return app;
}
