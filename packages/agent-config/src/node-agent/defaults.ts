// NodeAgentConfiguration defaulting: every default of spec section 2.2 and its supporting types, kubelet 1.28's where the spec shows none.
import { API_VERSION, NODE_AGENT_CONFIGURATION_KIND } from '../group.js';
import type { NodeAgentConfiguration } from './schema.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Hard eviction thresholds when the file sets none (kubelet's Linux defaults). */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = {
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
};
export const DEFAULT_CONTAINER_RUNTIME_ENDPOINT = 'unix:///run/containerd/containerd.sock';
export const DEFAULT_VOLUME_PLUGIN_DIR = '/usr/libexec/plat/agent-plugins/volume/exec/';
export const DEFAULT_CFS_QUOTA_PERIOD_MS = 100;

// Go's zero value of a non-pointer field reads as "not set", so such fields are defaulted when zero too;
// fields that upstream holds as pointers keep an explicit zero (registryPullQPS: 0 means no limit).
const isZero = (value: number | string | undefined): boolean => value === undefined || value === 0 || value === '';

/** A defaulted copy of the configuration; the input is not changed. */
export function setDefaults(input: NodeAgentConfiguration): NodeAgentConfiguration {
  const c = structuredClone(input);
  c.apiVersion ||= API_VERSION;
  c.kind ||= NODE_AGENT_CONFIGURATION_KIND;

  c.enableServer ??= true;
  if (isZero(c.syncFrequency)) c.syncFrequency = MINUTE;
  if (isZero(c.fileCheckFrequency)) c.fileCheckFrequency = 20 * SECOND;
  if (isZero(c.httpCheckFrequency)) c.httpCheckFrequency = 20 * SECOND;
  if (isZero(c.address)) c.address = '0.0.0.0';
  if (isZero(c.port)) c.port = 10250;
  c.readOnlyPort ??= 0;
  c.rotateCertificates ??= false;
  c.serverTLSBootstrap ??= false;

  const authentication = (c.authentication ??= {});
  authentication.x509 ??= {};
  const authnWebhook = (authentication.webhook ??= {});
  authnWebhook.enabled ??= true;
  if (isZero(authnWebhook.cacheTTL)) authnWebhook.cacheTTL = 2 * MINUTE;
  (authentication.anonymous ??= {}).enabled ??= false;
  const authorization = (c.authorization ??= {});
  if (isZero(authorization.mode)) authorization.mode = 'Webhook';
  const authzWebhook = (authorization.webhook ??= {});
  if (isZero(authzWebhook.cacheAuthorizedTTL)) authzWebhook.cacheAuthorizedTTL = 5 * MINUTE;
  if (isZero(authzWebhook.cacheUnauthorizedTTL)) authzWebhook.cacheUnauthorizedTTL = 30 * SECOND;

  c.registryPullQPS ??= 5;
  if (isZero(c.registryBurst)) c.registryBurst = 10;
  c.eventRecordQPS ??= 50;
  if (isZero(c.eventBurst)) c.eventBurst = 100;
  c.enableDebuggingHandlers ??= true;
  c.enableContentionProfiling ??= false;
  c.healthzPort ??= 10248;
  if (isZero(c.healthzBindAddress)) c.healthzBindAddress = '127.0.0.1';
  c.oomScoreAdj ??= -999;
  if (isZero(c.streamingConnectionIdleTimeout)) c.streamingConnectionIdleTimeout = 4 * HOUR;
  // Set explicitly, the update frequency is also the report frequency (kept for older files' sake).
  if (isZero(c.nodeStatusReportFrequency)) c.nodeStatusReportFrequency = isZero(c.nodeStatusUpdateFrequency) ? 5 * MINUTE : c.nodeStatusUpdateFrequency;
  if (isZero(c.nodeStatusUpdateFrequency)) c.nodeStatusUpdateFrequency = 10 * SECOND;
  if (isZero(c.nodeLeaseDurationSeconds)) c.nodeLeaseDurationSeconds = 40;
  if (isZero(c.imageMinimumGCAge)) c.imageMinimumGCAge = 2 * MINUTE;
  c.imageGCHighThresholdPercent ??= 85;
  c.imageGCLowThresholdPercent ??= 80;
  if (isZero(c.volumeStatsAggPeriod)) c.volumeStatsAggPeriod = MINUTE;
  c.cgroupsPerQOS ??= true;
  if (isZero(c.cgroupDriver)) c.cgroupDriver = 'cgroupfs';
  if (isZero(c.cpuManagerPolicy)) c.cpuManagerPolicy = 'None';
  if (isZero(c.cpuManagerReconcilePeriod)) c.cpuManagerReconcilePeriod = 10 * SECOND;
  if (isZero(c.memoryManagerPolicy)) c.memoryManagerPolicy = 'none';
  if (isZero(c.topologyManagerPolicy)) c.topologyManagerPolicy = 'none';
  if (isZero(c.topologyManagerScope)) c.topologyManagerScope = 'container';
  if (isZero(c.runtimeRequestTimeout)) c.runtimeRequestTimeout = 2 * MINUTE;
  if (isZero(c.hairpinMode)) c.hairpinMode = 'promiscuous-bridge';
  if (isZero(c.maxPods)) c.maxPods = 110;
  // Any negative limit means "the node's allocatable limit", written as -1: kubelet 1.28 rewrites a given negative value too, not only an unset one.
  if (c.podPidsLimit === undefined || c.podPidsLimit < 0) c.podPidsLimit = -1;
  c.resolvConf ??= '/etc/resolv.conf';
  c.runOnce ??= false;
  c.cpuCFSQuota ??= true;
  c.cpuCFSQuotaPeriod ??= DEFAULT_CFS_QUOTA_PERIOD_MS;
  c.nodeStatusMaxImages ??= 50;
  if (isZero(c.maxOpenFiles)) c.maxOpenFiles = 1_000_000;
  if (isZero(c.contentType)) c.contentType = 'application/vnd.plat.protobuf';
  c.platAPIQPS ??= 50;
  if (isZero(c.platAPIBurst)) c.platAPIBurst = 100;
  // Only a maxParallelImagePulls of 2 or more asks for parallel pulls, and so turns serialized pulls off unless the file says otherwise.
  c.serializeImagePulls ??= c.maxParallelImagePulls === undefined || c.maxParallelImagePulls < 2;
  c.evictionHard ??= { ...DEFAULT_EVICTION_HARD };
  if (isZero(c.evictionPressureTransitionPeriod)) c.evictionPressureTransitionPeriod = 5 * MINUTE;
  c.evictionMaxPodGracePeriod ??= 0;
  c.podsPerCore ??= 0;
  c.enableControllerAttachDetach ??= true;
  c.protectKernelDefaults ??= false;
  c.makeIPTablesUtilChains ??= true;
  c.iptablesMasqueradeBit ??= 14;
  c.iptablesDropBit ??= 15;
  c.failSwapOn ??= true;
  c.memorySwap ??= {};
  if (isZero(c.containerLogMaxSize)) c.containerLogMaxSize = '10Mi';
  c.containerLogMaxFiles ??= 5;
  if (isZero(c.configMapAndSecretChangeDetectionStrategy)) c.configMapAndSecretChangeDetectionStrategy = 'Watch';
  c.enforceNodeAllocatable ??= ['pods'];
  if (isZero(c.volumePluginDir)) c.volumePluginDir = DEFAULT_VOLUME_PLUGIN_DIR;
  c.kernelMemcgNotification ??= false;
  setLoggingDefaults((c.logging ??= {}));
  c.enableSystemLogHandler ??= true;
  c.enableSystemLogQuery ??= false;
  c.shutdownGracePeriod ??= 0;
  c.shutdownGracePeriodCriticalPods ??= 0;
  c.enableProfilingHandler ??= true;
  c.enableDebugFlagsHandler ??= true;
  c.seccompDefault ??= false;
  c.memoryThrottlingFactor ??= 0.9;
  c.registerNode ??= true;
  c.localStorageCapacityIsolation ??= true;
  if (isZero(c.containerRuntimeEndpoint)) c.containerRuntimeEndpoint = DEFAULT_CONTAINER_RUNTIME_ENDPOINT;
  if (isZero(c.imageServiceEndpoint)) c.imageServiceEndpoint = c.containerRuntimeEndpoint;
  return c;
}

/** Logging's recommended settings: text format, flushing every 5s, verbosity 0, no JSON buffer. */
function setLoggingDefaults(logging: NonNullable<NodeAgentConfiguration['logging']>): void {
  if (isZero(logging.format)) logging.format = 'text';
  if (!logging.flushFrequency || logging.flushFrequency.durationMs === 0) logging.flushFrequency = { durationMs: 5 * SECOND, serializeAsString: true };
  logging.verbosity ??= 0;
  const json = ((logging.options ??= {}).json ??= {});
  if (isZero(json.infoBufferSize)) json.infoBufferSize = '0';
}
