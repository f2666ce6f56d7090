// API Priority and Fairness, the filter (upstream's WithPriorityAndFairness): after impersonation,
// so it classifies the user the request acts as, before authorization. Each request is classified
// by @plat/flowcontrol's FlowController into a FlowSchema and priority level, takes the seats its
// work estimate says, and is admitted at once, queued fairly among its level's flows, or refused
// with upstream's plain-text 429. A watch holds its seat only until its initial state is written
// (ctx.state.watchInitialized, called by the watch verb); other long-running requests (proxy,
// exec, attach, log, portforward) are not held at all, as kube-apiserver's long-running check.
//
// How it relates to our other limits: APF replaces the max-in-flight filter (not installed while
// it is on, as upstream). The per-user token buckets in Redis (per-user-rate) are ours, not
// upstream's: APF's fairness between flows does the job they were added for, so they stay off
// unless --per-user-qps asks for them (a cluster-wide budget per user, which APF, per replica,
// does not give). The list memory budget (list-budget.ts) stays: seats bound how many requests run
// at once, not how many bytes a list holds in the heap, and a 5,000-object list is 10 seats
// whatever its objects weigh.
import type { Admitted, Classification, FlowController, RequestDigest, WorkEstimate } from '@plat/flowcontrol';
import { DroppedRequestsTracker, WaitEnd, estimateWork, requestWaitDeadline, type WorkEstimatorSources } from '@plat/flowcontrol';
import type { ServerMetrics } from '@plat/metrics';
import type { Middleware, RequestContext } from '../context.js';
import { TOO_MANY_REQUESTS_MESSAGE, requestKind } from '../limits.js';

/** Upstream's response headers: the UIDs (not names) of the matched FlowSchema and priority level. */
export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';

/** kube-apiserver's long-running check: these verbs and subresources are streams, never held by APF (watch aside). */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunningRequest(ctx: RequestContext): boolean {
  const info = ctx.state.requestInfo;
  if (!info.isResourceRequest) return false;
  return LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}

/** What the filter observes, for the apiserver_flowcontrol_* metrics (absent: none). */
export interface FlowControlObserver {
  dispatched(priorityLevel: string, flowSchema: string, waitedSeconds: number): void;
  rejected(priorityLevel: string, flowSchema: string, reason: string, waitedSeconds: number): void;
  /** +1 / -1 as a request enters or leaves a queue, and starts or ends executing with its seats. */
  inQueue(priorityLevel: string, flowSchema: string, delta: number): void;
  executing(priorityLevel: string, flowSchema: string, delta: number, seats: number): void;
}

export interface PriorityAndFairnessOptions {
  controller: FlowController;
  /** Object counts (ObjectCounter) and watcher counts for the work estimator; maxSeats comes from the controller. */
  sources: Omit<WorkEstimatorSources, 'maxSeats'>;
  /** Per level, the Retry-After of its 429s. */
  droppedRequests: DroppedRequestsTracker;
  /** The wait without a deadline: --request-timeout / 4 (defaultRequestWaitLimitMs). */
  defaultWaitLimitMs: number;
  /** The controller's clock's now(); performance.now() on a server. */
  now: () => number;
  /** Counts the watches admitted, for the estimate of writes' final seats. */
  watches?: WatchTracker;
  observer?: FlowControlObserver;
  /** apiserver_dropped_requests_total, counted by request kind as the max-in-flight filter counts it. */
  metrics?: ServerMetrics;
}

/** Watches open, by group-resource, namespace and name (upstream's watchTracker): how many a write would notify. */
export class WatchTracker {
  private readonly counts = new Map<string, number>();

  private static key(group: string, resource: string, namespace: string, name: string): string {
    return `${group}\0${resource}\0${namespace}\0${name}`;
  }

  /** Registers a watch; the returned function forgets it. */
  register(group: string, resource: string, namespace: string, name: string): () => void {
    const key = WatchTracker.key(group, resource, namespace, name);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
    };
  }

  /** Watchers of every namespace, of the object's namespace, and of the object itself. */
  interested(group: string, resource: string, namespace: string, name: string): number {
    const of = (ns: string, n: string) => this.counts.get(WatchTracker.key(group, resource, ns, n)) ?? 0;
    let count = of('', '');
    if (namespace !== '') count += of(namespace, '');
    if (name !== '') count += of(namespace, name);
    return count;
  }
}

/** The request's digest: its request info and the (impersonated) user, as classification reads them. */
export function requestDigest(ctx: RequestContext): RequestDigest {
  const info = ctx.state.requestInfo;
  return {
    user: ctx.state.user,
    requestInfo: {
      isResourceRequest: info.isResourceRequest,
      verb: info.verb,
      path: info.path,
      apiGroup: info.apiGroup,
      namespace: info.namespace,
      resource: info.resource,
      subresource: info.subresource,
      name: info.name,
    },
  };
}

/** Upstream's getRequestWaitContext: a quarter of the request's deadline from when it was received, else the default, at most a minute. */
export function requestWaitUntil(ctx: RequestContext, options: Pick<PriorityAndFairnessOptions, 'defaultWaitLimitMs' | 'now'>): number {
  const deadline = ctx.state.deadline;
  if (deadline) return requestWaitDeadline(deadline.receivedAt, deadline.at, options.defaultWaitLimitMs);
  return requestWaitDeadline(options.now(), undefined, options.defaultWaitLimitMs);
}

function setClassificationHeaders(ctx: RequestContext, c: Classification): void {
  ctx.set(FLOW_SCHEMA_UID_HEADER, c.flowSchema.metadata.uid ?? '');
  ctx.set(PRIORITY_LEVEL_UID_HEADER, c.priorityLevel.metadata.uid ?? '');
}

/** Upstream's tooManyRequests: http.Error's plain text, not a Status. */
function writeTooManyRequests(ctx: RequestContext, retryAfter: number): void {
  ctx.status = 429;
  ctx.body = `${TOO_MANY_REQUESTS_MESSAGE}\n`;
  ctx.set('Content-Type', 'text/plain; charset=utf-8');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Retry-After', String(retryAfter));
}

/** Resolves when the response has closed (finished, or the client went away). */
function responseClosed(ctx: RequestContext): Promise<void> {
  const res = ctx.res;
  if (res.destroyed || (res as { closed?: boolean }).closed) return Promise.resolve();
  return new Promise((resolve) => res.once('close', () => resolve()));
}

export function priorityAndFairnessFilter(options: PriorityAndFairnessOptions): Middleware {
  const { controller, observer } = options;
  const sources: WorkEstimatorSources = { ...options.sources, maxSeats: (pl) => controller.maxSeats(pl) };
  return async (ctx, next) => {
    const isWatch = ctx.state.requestInfo.isResourceRequest && ctx.state.requestInfo.verb === 'watch';
    if (isLongRunningRequest(ctx) && !isWatch) return next();
    // Set up before anything waits, so that a client gone while queued is seen.
    const closed = responseClosed(ctx);
    const gone = new WaitEnd();
    void closed.then(() => gone.abort());
    const info = ctx.state.requestInfo;
    const description = { verb: info.verb, apiGroup: info.apiGroup, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name, query: new URLSearchParams(ctx.querystring) };
    let classification: Classification | undefined;
    const estimate = (c: Classification): WorkEstimate => {
      classification = c;
      return estimateWork(description, c.priorityLevel.metadata.name, sources);
    };
    const names = (c: Classification) => [c.priorityLevel.metadata.name, c.flowSchema.metadata.name] as const;
    const started = options.now();
    const result = await controller.handle(requestDigest(ctx), estimate, {
      signal: gone,
      waitUntil: requestWaitUntil(ctx, options),
      onQueued: (inQueue) => classification && observer?.inQueue(...names(classification), inQueue ? 1 : -1),
      details: { user: ctx.state.user.name, verb: info.verb, path: info.path, namespace: info.namespace, name: info.name, apiGroup: info.apiGroup, apiVersion: info.apiVersion, resource: info.resource, subresource: info.subresource },
    });
    setClassificationHeaders(ctx, result.classification);
    if (!result.admitted) {
      const [pl, fs] = names(result.classification);
      observer?.rejected(pl, fs, result.reason, (options.now() - started) / 1000);
      // The client went away while waiting: nobody to answer.
      if (gone.aborted) return;
      options.droppedRequests.recordDroppedRequest(pl);
      options.metrics?.droppedRequests.inc({ request_kind: requestKind(ctx) });
      ctx.state.terminated = true;
      writeTooManyRequests(ctx, options.droppedRequests.retryAfter(pl));
      return;
    }
    await run(ctx, next, result, isWatch, closed, options);
  };
}

async function run(ctx: RequestContext, next: () => Promise<unknown>, admitted: Admitted, isWatch: boolean, closed: Promise<void>, options: PriorityAndFairnessOptions): Promise<void> {
  const [pl, fs] = [admitted.classification.priorityLevel.metadata.name, admitted.classification.flowSchema.metadata.name];
  const seats = admitted.workEstimate.initialSeats;
  // As upstream, apiserver_current_inflight_requests counts what APF executes (a watch while it initializes).
  const inflight = options.metrics?.inflightNow;
  const kind = requestKind(ctx);
  options.observer?.dispatched(pl, fs, admitted.waitedMs / 1000);
  options.observer?.executing(pl, fs, 1, seats);
  if (inflight) inflight[kind]++;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    options.observer?.executing(pl, fs, -1, seats);
    if (inflight) inflight[kind]--;
    admitted.finish();
  };
  if (isWatch) {
    const info = ctx.state.requestInfo;
    const forget = options.watches?.register(info.apiGroup, info.resource, info.namespace, info.name);
    // The seat is held until the watch's initial state has been written (or the watch ends first).
    ctx.state.watchInitialized = finish;
    try {
      await next();
    } finally {
      finish();
      if (forget) void closed.then(forget);
    }
    return;
  }
  try {
    await next();
  } finally {
    // A body may still be streaming (a large list goes out in chunks): held until the response closes.
    void closed.then(finish);
  }
}
