// The controllers a leader runs, over one client, one set of shared informers and one view of the
// served resources; they run until the signal aborts.
import { setMaxListeners } from 'node:events';
import { EventRecorder, InformerFactory, RateLimitingQueue, type Client, type Logger, type WorkQueueMetricsProvider } from '@plat/client';
import { clusterRoleAggregationController } from './controllers/cluster-role-aggregation.js';
import type { Controller, ControllerContext } from './controllers/context.js';
import { crdCleanupController } from './controllers/crd-cleanup.js';
import { garbageCollectorController } from './controllers/garbage-collector.js';
import { namespaceController } from './controllers/namespace.js';
import { nodeLifecycleController } from './controllers/node-lifecycle.js';
import { serviceAccountController } from './controllers/service-account.js';
import type { ControllerManagerConfig, ControllerName } from './options.js';
import { ResourceMap } from './resources.js';

/** The source component of a controller's events where upstream's is not the controller's name. */
const eventSources: Partial<Record<ControllerName, string>> = { 'node-lifecycle-controller': 'node-controller' };

export type ControllersConfig = Pick<ControllerManagerConfig, 'apiDomain' | 'controllers' | 'concurrentGCSyncs' | 'concurrentNamespaceSyncs'> &
  Partial<Pick<ControllerManagerConfig, 'nodeLifecycle'>>;

// Upstream's defaults, where a caller (a test) leaves them out.
const defaultNodeLifecycle = { monitorPeriodMs: 5_000, gracePeriodMs: 40_000, startupGracePeriodMs: 60_000 };

export interface ControllersHooks {
  /** Where the controllers' work queues report (the controller-manager's /metrics). */
  queueMetrics?: WorkQueueMetricsProvider;
  /** Told of the shared informers when the controllers start, and of undefined once they stopped (readiness). */
  onInformers?(informers: InformerFactory | undefined): void;
  /**
   * The client a controller acts with (--use-service-account-credentials); absent, every controller
   * uses the controller-manager's own. Reads through the shared informers stay on its own client.
   */
  clientFor?(controller: ControllerName, signal: AbortSignal): Promise<Client>;
}

export async function runControllers(client: Client, config: ControllersConfig, logger: Logger, signal: AbortSignal, hooks: ControllersHooks = {}): Promise<void> {
  // Every controller, its token renewal and each informer it waits for listen on this one signal,
  // each removing its listener when done: more than node's 10 is no leak, so it must not warn.
  setMaxListeners(0, signal);
  const informers = new InformerFactory(client, { logger });
  const context: Omit<ControllerContext, 'events'> = {
    client,
    informers,
    resources: new ResourceMap(client),
    domain: config.apiDomain,
    logger,
    workQueue: (name) => new RateLimitingQueue({ name, ...(hooks.queueMetrics && { metrics: hooks.queueMetrics }) }),
  };
  const controllers: Record<ControllerName, Controller> = {
    'namespace-controller': namespaceController(config.concurrentNamespaceSyncs),
    'serviceaccount-controller': serviceAccountController,
    'clusterrole-aggregation-controller': clusterRoleAggregationController,
    'garbage-collector-controller': garbageCollectorController(config.concurrentGCSyncs),
    'crd-cleanup-controller': crdCleanupController,
    'node-lifecycle-controller': nodeLifecycleController(config.nodeLifecycle ?? defaultNodeLifecycle),
  };
  const enabled = (Object.keys(controllers) as ControllerName[]).filter((name) => config.controllers.has(name));
  // Credentials first: each controller asks for its informers before its first await, and they
  // all start together.
  const clientFor = hooks.clientFor;
  const clients = clientFor ? await Promise.all(enabled.map((name) => clientFor(name, signal))) : enabled.map(() => client);
  // Each controller records its events with its own client, its name as their source (upstream's
  // where it differs), as upstream's controllers each get a recorder of their own.
  const recorders = enabled.map((name, i) => new EventRecorder(clients[i]!, { component: eventSources[name] ?? name, logger }));
  const running = enabled.map((name, i) => {
    logger.info({ controller: name }, 'starting controller');
    return controllers[name]({ ...context, client: clients[i]!, events: recorders[i]! }, signal).catch((err: unknown) => logger.error({ err, controller: name }, 'controller failed'));
  });
  informers.start();
  hooks.onInformers?.(informers);
  await Promise.all(running);
  // Events not written by now are dropped, as upstream's broadcaster drops them at shutdown.
  for (const recorder of recorders) recorder.stop();
  hooks.onInformers?.(undefined);
  await informers.stop();
}
