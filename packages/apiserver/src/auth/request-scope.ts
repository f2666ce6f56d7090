// Who is making the request that the current code runs for, as Go's request context carries it:
// the filter chain enters a scope per request, and code deep in the store (admission checks) reads
// it without every call in between passing it on. Code outside any request (start-up bootstrap)
// sees no scope: it acts for the server itself.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Middleware } from '../context.js';
import type { RequestInfo } from '../request-info.js';
import type { UserInfo } from '../user.js';

export interface RequestScope {
  /** The user the request acts as (after impersonation). */
  user: UserInfo;
  requestInfo: RequestInfo;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** The scope of the request the caller runs for; undefined outside any request. */
export const currentRequest = (): RequestScope | undefined => storage.getStore();

/** Runs `fn` (and everything it starts) in the scope of one request. */
export const runInRequestScope = <T>(scope: RequestScope, fn: () => T): T => storage.run(scope, fn);

/** The filter that opens the scope, after authentication and impersonation have settled the user. */
export const requestScopeFilter: Middleware = (ctx, next) =>
  runInRequestScope({ user: ctx.state.user, requestInfo: ctx.state.requestInfo }, next);
