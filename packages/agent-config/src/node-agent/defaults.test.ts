import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setDefaults } from './defaults.js';
import type { NodeAgentConfiguration } from './schema.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;

/** The value at a dotted path. */
function at(config: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], config);
}

// Every default of spec section 2.2 and the supporting types, for an empty file.
const emptyFileDefaults: [string, unknown][] = [
  ['apiVersion', 'agent.config.plat.io/v1beta1'],
  ['kind', 'NodeAgentConfiguration'],
  ['enableServer', true],
  ['staticPodPath', undefined],
  ['syncFrequency', 1 * m],
  ['fileCheckFrequency', 20 * s],
  ['httpCheckFrequency', 20 * s],
  ['staticPodURL', undefined],
  ['staticPodURLHeader', undefined],
  ['address', '0.0.0.0'],
  ['port', 10250],
  ['readOnlyPort', 0],
  ['tlsCertFile', undefined],
  ['tlsPrivateKeyFile', undefined],
  ['tlsCipherSuites', undefined],
  ['tlsMinVersion', undefined],
  ['rotateCertificates', false],
  ['serverTLSBootstrap', false],
  ['authentication.anonymous.enabled', false],
  ['authentication.webhook.enabled', true],
  ['authentication.webhook.cacheTTL', 2 * m],
  ['authentication.x509.clientCAFile', undefined],
  ['authorization.mode', 'Webhook'],
  ['authorization.webhook.cacheAuthorizedTTL', 5 * m],
  ['authorization.webhook.cacheUnauthorizedTTL', 30 * s],
  ['registryPullQPS', 5],
  ['registryBurst', 10],
  ['eventRecordQPS', 50],
  ['eventBurst', 100],
  ['enableDebuggingHandlers', true],
  ['enableContentionProfiling', false],
  ['healthzPort', 10248],
  ['healthzBindAddress', '127.0.0.1'],
  ['oomScoreAdj', -999],
  ['clusterDomain', undefined],
  ['clusterDNS', undefined],
  ['streamingConnectionIdleTimeout', 4 * h],
  ['nodeStatusUpdateFrequency', 10 * s],
  ['nodeStatusReportFrequency', 5 * m],
  ['nodeLeaseDurationSeconds', 40],
  ['imageMinimumGCAge', 2 * m],
  ['imageGCHighThresholdPercent', 85],
  ['imageGCLowThresholdPercent', 80],
  ['volumeStatsAggPeriod', 1 * m],
  ['agentCgroups', undefined],
  ['systemCgroups', undefined],
  ['cgroupRoot', undefined],
  ['cgroupsPerQOS', true],
  ['cgroupDriver', 'cgroupfs'],
  ['cpuManagerPolicy', 'None'],
  ['cpuManagerPolicyOptions', undefined],
  ['cpuManagerReconcilePeriod', 10 * s],
  ['memoryManagerPolicy', 'none'],
  ['topologyManagerPolicy', 'none'],
  ['topologyManagerScope', 'container'],
  ['topologyManagerPolicyOptions', undefined],
  ['qosReserved', undefined],
  ['runtimeRequestTimeout', 2 * m],
  ['hairpinMode', 'promiscuous-bridge'],
  ['maxPods', 110],
  ['podCIDR', undefined],
  ['podPidsLimit', -1],
  ['resolvConf', '/etc/resolv.conf'],
  ['runOnce', false],
  ['cpuCFSQuota', true],
  ['cpuCFSQuotaPeriod', 100],
  ['nodeStatusMaxImages', 50],
  ['maxOpenFiles', 1_000_000],
  ['contentType', 'application/vnd.plat.protobuf'],
  ['platAPIQPS', 50],
  ['platAPIBurst', 100],
  ['serializeImagePulls', true],
  ['maxParallelImagePulls', undefined],
  ['evictionHard', { 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%' }],
  ['evictionSoft', undefined],
  ['evictionSoftGracePeriod', undefined],
  ['evictionPressureTransitionPeriod', 5 * m],
  ['evictionMaxPodGracePeriod', 0],
  ['evictionMinimumReclaim', undefined],
  ['podsPerCore', 0],
  ['enableControllerAttachDetach', true],
  ['protectKernelDefaults', false],
  ['makeIPTablesUtilChains', true],
  ['iptablesMasqueradeBit', 14],
  ['iptablesDropBit', 15],
  ['featureGates', undefined],
  ['failSwapOn', true],
  ['memorySwap.swapBehavior', undefined],
  ['containerLogMaxSize', '10Mi'],
  ['containerLogMaxFiles', 5],
  ['configMapAndSecretChangeDetectionStrategy', 'Watch'],
  ['systemReserved', undefined],
  ['platReserved', undefined],
  ['reservedSystemCPUs', undefined],
  ['showHiddenMetricsForVersion', undefined],
  ['systemReservedCgroup', undefined],
  ['platReservedCgroup', undefined],
  ['enforceNodeAllocatable', ['pods']],
  ['allowedUnsafeSysctls', undefined],
  ['volumePluginDir', '/usr/libexec/plat/agent-plugins/volume/exec/'],
  ['providerID', undefined],
  ['kernelMemcgNotification', false],
  ['logging.format', 'text'],
  ['logging.flushFrequency', { durationMs: 5 * s, serializeAsString: true }],
  ['logging.verbosity', 0],
  ['logging.vmodule', undefined],
  ['logging.options.json.infoBufferSize', '0'],
  ['enableSystemLogHandler', true],
  ['enableSystemLogQuery', false],
  ['shutdownGracePeriod', 0],
  ['shutdownGracePeriodCriticalPods', 0],
  ['shutdownGracePeriodByPodPriority', undefined],
  ['reservedMemory', undefined],
  ['enableProfilingHandler', true],
  ['enableDebugFlagsHandler', true],
  ['seccompDefault', false],
  ['memoryThrottlingFactor', 0.9],
  ['registerWithTaints', undefined],
  ['registerNode', true],
  ['tracing', undefined],
  ['localStorageCapacityIsolation', true],
  ['containerRuntimeEndpoint', 'unix:///run/containerd/containerd.sock'],
  ['imageServiceEndpoint', 'unix:///run/containerd/containerd.sock'],
];

const empty = setDefaults({});
for (const [path, expected] of emptyFileDefaults) {
  test(`default: ${path} is ${JSON.stringify(expected) ?? 'unset'}`, () => {
    assert.deepEqual(at(empty, path), expected);
  });
}

// Defaults that depend on what the file says.
const dependentCases: { name: string; input: NodeAgentConfiguration; path: string; expected: unknown }[] = [
  { name: 'nodeStatusReportFrequency takes nodeStatusUpdateFrequency when that is set', input: { nodeStatusUpdateFrequency: 20 * s }, path: 'nodeStatusReportFrequency', expected: 20 * s },
  { name: 'nodeStatusUpdateFrequency set explicitly is kept', input: { nodeStatusUpdateFrequency: 20 * s }, path: 'nodeStatusUpdateFrequency', expected: 20 * s },
  { name: 'nodeStatusReportFrequency set explicitly is kept', input: { nodeStatusUpdateFrequency: 20 * s, nodeStatusReportFrequency: 1 * m }, path: 'nodeStatusReportFrequency', expected: 1 * m },
  { name: 'nodeStatusUpdateFrequency of 0s counts as unset', input: { nodeStatusUpdateFrequency: 0 }, path: 'nodeStatusReportFrequency', expected: 5 * m },
  { name: 'imageServiceEndpoint takes containerRuntimeEndpoint', input: { containerRuntimeEndpoint: 'unix:///run/crio/crio.sock' }, path: 'imageServiceEndpoint', expected: 'unix:///run/crio/crio.sock' },
  { name: 'imageServiceEndpoint set explicitly is kept', input: { imageServiceEndpoint: 'unix:///run/images.sock' }, path: 'imageServiceEndpoint', expected: 'unix:///run/images.sock' },
  { name: 'serializeImagePulls is false when maxParallelImagePulls is 2 or more', input: { maxParallelImagePulls: 4 }, path: 'serializeImagePulls', expected: false },
  { name: 'serializeImagePulls is false when maxParallelImagePulls is 2', input: { maxParallelImagePulls: 2 }, path: 'serializeImagePulls', expected: false },
  { name: 'serializeImagePulls stays true when maxParallelImagePulls is 1', input: { maxParallelImagePulls: 1 }, path: 'serializeImagePulls', expected: true },
  { name: 'serializeImagePulls stays true when maxParallelImagePulls is 0 (invalid)', input: { maxParallelImagePulls: 0 }, path: 'serializeImagePulls', expected: true },
  { name: 'serializeImagePulls false with maxParallelImagePulls 1 is kept', input: { maxParallelImagePulls: 1, serializeImagePulls: false }, path: 'serializeImagePulls', expected: false },
  { name: 'serializeImagePulls set explicitly is kept', input: { maxParallelImagePulls: 4, serializeImagePulls: true }, path: 'serializeImagePulls', expected: true },
  { name: 'a negative podPidsLimit becomes -1', input: { podPidsLimit: -7 }, path: 'podPidsLimit', expected: -1 },
  { name: 'a positive podPidsLimit is kept', input: { podPidsLimit: 1024 }, path: 'podPidsLimit', expected: 1024 },
  // Upstream's non-pointer fields: zero reads as unset.
  { name: 'port 0 becomes 10250', input: { port: 0 }, path: 'port', expected: 10250 },
  { name: 'registryBurst 0 becomes 10', input: { registryBurst: 0 }, path: 'registryBurst', expected: 10 },
  { name: 'nodeLeaseDurationSeconds 0 becomes 40', input: { nodeLeaseDurationSeconds: 0 }, path: 'nodeLeaseDurationSeconds', expected: 40 },
  { name: 'an empty address becomes 0.0.0.0', input: { address: '' }, path: 'address', expected: '0.0.0.0' },
  { name: 'a syncFrequency of 0s becomes 1m', input: { syncFrequency: 0 }, path: 'syncFrequency', expected: 1 * m },
  // Upstream's pointer fields: an explicit zero stays.
  { name: 'registryPullQPS 0 (no limit) is kept', input: { registryPullQPS: 0 }, path: 'registryPullQPS', expected: 0 },
  { name: 'eventRecordQPS 0 (no limit) is kept', input: { eventRecordQPS: 0 }, path: 'eventRecordQPS', expected: 0 },
  { name: 'healthzPort 0 (disabled) is kept', input: { healthzPort: 0 }, path: 'healthzPort', expected: 0 },
  { name: 'nodeStatusMaxImages 0 is kept', input: { nodeStatusMaxImages: 0 }, path: 'nodeStatusMaxImages', expected: 0 },
  { name: 'imageGCLowThresholdPercent 0 is kept', input: { imageGCLowThresholdPercent: 0 }, path: 'imageGCLowThresholdPercent', expected: 0 },
  { name: 'enableServer false is kept', input: { enableServer: false }, path: 'enableServer', expected: false },
  { name: 'resolvConf "" (no DNS lookups) is kept', input: { resolvConf: '' }, path: 'resolvConf', expected: '' },
  { name: 'an empty enforceNodeAllocatable is kept', input: { enforceNodeAllocatable: [] }, path: 'enforceNodeAllocatable', expected: [] },
  { name: 'an empty evictionHard is kept', input: { evictionHard: {} }, path: 'evictionHard', expected: {} },
  { name: 'authentication.webhook.enabled false is kept', input: { authentication: { webhook: { enabled: false } } }, path: 'authentication.webhook.enabled', expected: false },
  { name: 'authentication.webhook.cacheTTL still defaults beside it', input: { authentication: { webhook: { enabled: false } } }, path: 'authentication.webhook.cacheTTL', expected: 2 * m },
  { name: 'a flushFrequency in nanoseconds is kept as such', input: { logging: { flushFrequency: { durationMs: 1000, serializeAsString: false } } }, path: 'logging.flushFrequency', expected: { durationMs: 1000, serializeAsString: false } },
  { name: 'logging.format json is kept', input: { logging: { format: 'json' } }, path: 'logging.format', expected: 'json' },
];

for (const { name, input, path, expected } of dependentCases) {
  test(`default: ${name}`, () => {
    assert.deepEqual(at(setDefaults(input), path), expected);
  });
}

test('defaulting leaves its input unchanged', () => {
  const input: NodeAgentConfiguration = { port: 0, authentication: {} };
  setDefaults(input);
  assert.deepEqual(input, { port: 0, authentication: {} });
});

test('defaulting twice changes nothing more', () => {
  assert.deepEqual(setDefaults(empty), empty);
});
