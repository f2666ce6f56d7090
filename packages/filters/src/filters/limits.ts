// The request limits as filters: in-flight per replica (upstream's max-in-flight filter, watches
// exempt), then per-user rates (limits.ts keeps the limiters).
import { newTooManyRequests } from '@plat/apimachinery';
import type { Middleware } from '../context.js';
import { TOO_MANY_REQUESTS_MESSAGE, isLongRunning, requestKind, type LimitOptions, type RequestKind, type UserRateLimiter } from '../limits.js';
import type { ServerMetrics } from '@plat/metrics';
import { SYSTEM_PRIVILEGED_GROUP } from '@plat/authn';

/** Probes and scrapes are never rate-limited per user: load balancers and Prometheus must get through. */
const exemptPaths = /^\/(healthz|livez|readyz|metrics|version)(\/|$)/;

/**
 * The in-flight limits: a request over its kind's limit gets 429 with Retry-After: 1 at once
 * (upstream's max-in-flight filter does not queue). Needs the user: runs after authentication.
 */
export function inflightFilter(options: LimitOptions, metrics: ServerMetrics): Middleware {
  const limits: Record<RequestKind, number> = { readOnly: options.maxRequestsInflight, mutating: options.maxMutatingRequestsInflight };
  // Shared with the metrics, which read it at scrape time.
  const current: Record<RequestKind, number> = metrics.inflightNow;
  return async (ctx, next) => {
    if (isLongRunning(ctx)) {
      metrics.longRunning.inc();
      ctx.res.once('close', () => metrics.longRunning.dec());
      return next();
    }
    const kind = requestKind(ctx);
    const limit = limits[kind];
    // As upstream: system:masters always gets an answer (super-admins, loopback clients).
    if (limit > 0 && current[kind] >= limit && !ctx.state.user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) {
      metrics.droppedRequests.inc({ request_kind: kind });
      ctx.state.terminated = true;
      throw newTooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1);
    }
    current[kind]++;
    // Released when the response closes (finished or aborted), not when next() returns: a body
    // may still be streaming.
    ctx.res.once('close', () => {
      current[kind]--;
    });
    await next();
  };
}

/**
 * Per-user rates: 429 with Retry-After (whole seconds, at least 1) when the user's bucket is empty.
 * Members of system:masters and probe or scrape paths are exempt, as upstream's exempt priority level.
 */
export function userRateFilter(limiter: UserRateLimiter, metrics: ServerMetrics): Middleware {
  return async (ctx, next) => {
    const user = ctx.state.user;
    if (exemptPaths.test(ctx.path) || user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return next();
    const decision = await limiter.take(user.name);
    if (!decision.allowed) {
      metrics.userRateRejected.inc();
      ctx.state.terminated = true;
      throw newTooManyRequests(TOO_MANY_REQUESTS_MESSAGE, Math.max(1, Math.ceil(decision.retryAfterSeconds)));
    }
    return next();
  };
}
