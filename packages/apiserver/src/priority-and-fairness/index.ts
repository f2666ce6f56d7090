// API Priority and Fairness on a server (--enable-priority-and-fairness): one FlowController per
// replica over the server's concurrency (--max-requests-inflight + --max-mutating-requests-inflight),
// the filter's options (work estimates from the object counter and the watches it admits, the
// dropped-requests tracker for Retry-After, the wait limit), the config consumer and producer
// over the flowcontrol kinds (v1beta3) where they are served, the apiserver_flowcontrol_* metrics
// and the debug endpoints.
import type { Logger } from 'pino';
import { DroppedRequestsTracker, FlowController, defaultRequestWaitLimitMs, type Clock } from '@plat/flowcontrol';
import { FlowControlMetrics, type ServerMetrics } from '@plat/metrics';
import { WatchTracker, type PathMux, type PriorityAndFairnessOptions } from '@plat/filters';
import type { ResourceCatalog } from '@plat/endpoints';
import { ConfigConsumer } from './config-consumer.js';
import { ConfigProducer } from './config-producer.js';
import { serveDebugDumps } from './debug-dump.js';

export { CONSUMER_FIELD_MANAGER } from './config-consumer.js';
export { PRODUCER_FIELD_MANAGER } from './config-producer.js';

/** The server's concurrency limit in seats; upstream's error when the two flags add up to nothing. */
export function serverConcurrency(maxRequestsInflight: number, maxMutatingRequestsInflight: number): number {
  const sum = maxRequestsInflight + maxMutatingRequestsInflight;
  if (sum <= 0) throw new Error(`invalid configuration: MaxRequestsInFlight=${maxRequestsInflight} and MaxMutatingRequestsInFlight=${maxMutatingRequestsInflight}; they must add up to something positive`);
  return sum;
}

const realClock: Clock = {
  now: () => performance.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(timer);
  },
};

export interface PriorityAndFairnessSources {
  /** Seats of the whole server. */
  serverConcurrencyLimit: number;
  requestTimeoutMs: number;
  /** The config producer's reconcile period; default a minute, as upstream. */
  producerReconcileMs?: number;
  /** The resource API, where the flowcontrol kinds may be served; absent: the mandatory objects only. */
  catalog?: ResourceCatalog;
  domain: string;
  objectCount: (groupResource: string) => number | undefined;
  mux: PathMux;
  metrics: ServerMetrics;
  logger: Logger;
}

export interface ServedPriorityAndFairness {
  filter: PriorityAndFairnessOptions;
  controller: FlowController;
  start(): void;
  stop(): void;
}

export function servePriorityAndFairness(sources: PriorityAndFairnessSources): ServedPriorityAndFairness {
  const { logger, catalog, domain } = sources;
  const controller = new FlowController(realClock, sources.serverConcurrencyLimit);
  const watches = new WatchTracker();
  const observer = new FlowControlMetrics(sources.metrics.stability, () =>
    controller.snapshot().map((l) => ({
      priorityLevel: l.priorityLevel.metadata.name,
      nominalCL: l.limits.nominalCL,
      lowerCL: l.limits.minCL,
      upperCL: l.limits.maxCL,
      currentCL: l.currentCL,
    })),
  );
  const filter: PriorityAndFairnessOptions = {
    controller,
    sources: {
      objectCount: (groupResource) => sources.objectCount(groupResource) ?? 'not-found',
      watchCount: (r) => watches.interested(r.apiGroup, r.resource, r.namespace, r.name),
    },
    droppedRequests: new DroppedRequestsTracker(() => Date.now()),
    defaultWaitLimitMs: defaultRequestWaitLimitMs(sources.requestTimeoutMs > 0 ? sources.requestTimeoutMs : 60_000),
    now: realClock.now,
    watches,
    observer,
    metrics: sources.metrics,
  };
  serveDebugDumps(sources.mux, () => controller.snapshot(), (t) => Date.now() - (performance.now() - t));

  const group = `flowcontrol.apiserver.${domain}`;
  const served = catalog?.find(group, 'v1beta3', 'flowschemas') && catalog.find(group, 'v1beta3', 'prioritylevelconfigurations');
  if (!catalog || !served) {
    logger.info('priority and fairness: the flowcontrol v1beta3 kinds are not served; the mandatory configuration applies');
    return { filter, controller, start: () => {}, stop: () => {} };
  }
  const stores = {
    flowSchemas: catalog.store(group, 'v1beta3', 'flowschemas'),
    priorityLevels: catalog.store(group, 'v1beta3', 'prioritylevelconfigurations'),
    apiVersion: `${group}/v1beta3`,
  };
  const consumer = new ConfigConsumer(controller, stores, logger);
  const producer = new ConfigProducer(stores, domain, logger, sources.producerReconcileMs);
  return {
    filter,
    controller,
    start() {
      consumer.start();
      producer.start();
    },
    stop() {
      consumer.stop();
      producer.stop();
    },
  };
}
