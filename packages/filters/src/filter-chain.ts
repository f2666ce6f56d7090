// The filter chain every request passes, as data: an ordered list of named filters, each built
// from the one context that holds what filters may need (the logger, the metrics, authentication,
// the authorizer, the limits, the audit sink, the mux), in upstream's order (its
// DefaultBuildHandlerChain, outermost first), ending in the handler mux. A filter that is not
// configured builds to nothing. Adding a filter is adding an entry.
import type { Logger } from 'pino';
import type { AuthenticationOptions } from '@plat/authn';
import type { Authorizer } from '@plat/authz';
import type { Middleware } from './context.js';
import type { AuditSink } from '@plat/audit';
import type { AuditPolicy } from '@plat/audit';
import { auditFilter, auditRequestReceivedFilter } from './filters/audit.js';
import { authenticationFilter } from './filters/authentication.js';
import { authorizationFilter } from './filters/authorization.js';
import { errorHandler } from './filters/error-handler.js';
import { impersonationFilter } from './filters/impersonation.js';
import { inflightFilter, userRateFilter } from './filters/limits.js';
import { metricsFilter } from './filters/metrics.js';
import { priorityAndFairnessFilter, type PriorityAndFairnessOptions } from './filters/priority-and-fairness.js';
import { requestInfoFilter } from './filters/request-info.js';
import { requestLogFilter } from './filters/request-log.js';
import { timeoutFilter } from './filters/timeout.js';
import type { LimitOptions, UserRateLimiter } from './limits.js';
import type { ServerMetrics } from '@plat/metrics';
import type { PathMux } from './mux.js';
import type { RequestInfo } from './request-info.js';

/** What the filters are built from: one context for all of them. */
export interface FilterContext {
  logger: Logger;
  metrics: ServerMetrics;
  authentication: AuthenticationOptions;
  authorizer: Authorizer;
  mux: PathMux;
  /** --api-domain, for the API groups impersonation is authorized in. */
  domain: string;
  /** Whether a resource request names a resource this server serves (for metric labels). */
  isKnownResource: (info: RequestInfo) => boolean;
  /** In-flight limits; absent: none. Not installed while priority and fairness is on, as upstream. */
  limits?: LimitOptions;
  /** API Priority and Fairness (--enable-priority-and-fairness); absent: off. */
  priorityAndFairness?: PriorityAndFairnessOptions;
  /** Per-user request rates; absent: none. */
  userRateLimiter?: UserRateLimiter;
  /** --request-timeout: past it, a request other than a watch is answered 504; 0: none. */
  requestTimeoutMs: number;
  /** Where audit events go, and the policy that decides them; absent: no audit. */
  audit?: { sink: AuditSink; policy: AuditPolicy };
}

export interface NamedFilter {
  readonly name: string;
  /** The filter, or undefined where the context does not configure it. */
  build(context: FilterContext): Middleware | undefined;
}

/** upstream's chain, outermost first, with ours beside its counterparts; the handler mux last. */
export const DEFAULT_FILTER_CHAIN: readonly NamedFilter[] = [
  { name: 'request-info', build: () => requestInfoFilter },
  { name: 'audit', build: ({ audit, domain }) => audit && auditFilter(audit.sink, domain, audit.policy) },
  // Outside the error handler, so that they see the final status of every request.
  { name: 'metrics', build: ({ metrics, isKnownResource }) => metricsFilter(metrics, isKnownResource) },
  { name: 'request-log', build: ({ logger }) => requestLogFilter(logger) },
  { name: 'error-handler', build: ({ logger }) => errorHandler(logger) },
  // Inside the error handler (a bad ?timeout= is a 400 Status), outside everything that may take time.
  { name: 'timeout', build: ({ requestTimeoutMs }) => timeoutFilter(requestTimeoutMs) },
  { name: 'authentication', build: ({ authentication }) => authenticationFilter(authentication) },
  { name: 'audit-request-received', build: () => auditRequestReceivedFilter },
  { name: 'impersonation', build: ({ authorizer, domain }) => impersonationFilter(authorizer, domain) },
  // Where upstream has priority and fairness, or max-in-flight without it: after impersonation
  // (classification and per-user rates need the user the request acts as), before authorization.
  { name: 'priority-and-fairness', build: ({ priorityAndFairness }) => priorityAndFairness && priorityAndFairnessFilter(priorityAndFairness) },
  {
    name: 'max-in-flight',
    build: ({ limits, metrics, priorityAndFairness }) => (priorityAndFairness ? undefined : inflightFilter(limits ?? { maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 }, metrics)),
  },
  { name: 'per-user-rate', build: ({ userRateLimiter, metrics }) => userRateLimiter && userRateFilter(userRateLimiter, metrics) },
  { name: 'authorization', build: ({ authorizer, domain, logger }) => authorizationFilter(authorizer, domain, logger) },
  { name: 'mux', build: ({ mux }) => mux.dispatch() },
];

/** `chain` with `filter` added just before the filter named `before`. */
export function withFilterBefore(chain: readonly NamedFilter[], before: string, filter: NamedFilter): NamedFilter[] {
  const at = chain.findIndex((entry) => entry.name === before);
  if (at < 0) throw new Error(`no filter named ${before} in the chain`);
  return [...chain.slice(0, at), filter, ...chain.slice(at)];
}
