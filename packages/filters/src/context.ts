// The koa types of this server: what the filter chain leaves on ctx.state for the handlers after it.
import type Koa from 'koa';
import type { RequestInfo } from './request-info.js';
import type { UserInfo } from '@plat/authn';
import type { RequestAudit } from './filters/audit.js';

export interface RequestState {
  /** Set first, for every request. */
  requestInfo: RequestInfo;
  /** Set by the authentication filter (and replaced by impersonation); handlers after it may rely on it. */
  user: UserInfo;
  /** The authenticated user when the request impersonates `user`, for logs and audit. */
  impersonator?: UserInfo;
  /** Annotations of the request's audit event; set by the audit filter when auditing is on. */
  auditAnnotations?: Record<string, string>;
  /** The request's audit (filters/audit.ts) when auditing is on: handlers note bodies and stages to it. */
  audit?: RequestAudit;
  /** The Protobuf media type the client negotiated for this resource, so errors answer in it too. */
  protobufErrors?: string;
  /**
   * Set where the server refuses or ends the request in self-defense (a limit's 429, the timeout's
   * 504): counted in apiserver_request_terminations_total when the response closes.
   */
  terminated?: boolean;
  /**
   * Set by the timeout filter: when the request was received and its deadline, on performance.now()'s
   * clock (priority and fairness waits at most a quarter of the time between them).
   */
  deadline?: { receivedAt: number; at: number };
  /**
   * Set by priority and fairness on an admitted watch: the watch calls it once its initial state is
   * written, which frees the seat it held.
   */
  watchInitialized?: () => void;
}

export type RequestContext = Koa.ParameterizedContext<RequestState>;
export type Middleware = Koa.Middleware<RequestState>;
/** Answers a request that reached the end of the filter chain. */
export type Handler = (ctx: RequestContext) => Promise<void> | void;
