// The controller-manager's parts, exported for tests and tools; the binary itself is main.ts.
export { runControllers, type ControllersConfig, type ControllersHooks } from './controller-manager.js';
export { ControllerManagerMetrics } from './metrics.js';
export { startSecureServing, leaderElectionCheck, InformerSyncCheck, type SecureServing, type SecureServingOptions } from './serving.js';
export { parseCommandLine, buildConfig, enabledControllers, controllerNames, controllerManagerFlags, type ControllerManagerConfig, type ControllerName } from './options.js';
export { FlagError, parseFlags, usage } from '@plat/apimachinery';
export { aggregatedRules, sameRules, type ClusterRole } from './controllers/cluster-role-aggregation.js';
export { ConditionUpdater, type Namespace, type NamespaceCondition } from './controllers/namespace.js';
export { GarbageCollector, GraphNode, type Identity } from './controllers/garbage-collector.js';
export { ResourceMap } from './resources.js';
export { namespaceFinalizer, systemNamespace, leaseName } from './names.js';
