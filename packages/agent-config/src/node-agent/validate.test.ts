import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setDefaults } from './defaults.js';
import type { NodeAgentConfiguration } from './schema.js';
import { validateNodeAgentConfiguration } from './validate.js';
import { FeatureGateSet } from '../feature-gates.js';

const s = 1000;
type Config = NodeAgentConfiguration;

interface RuleCase {
  rule: string;
  valid: Config;
  /** A file breaking the rule, or a change to the defaulted valid file (for what defaulting would repair). */
  invalid: Config | ((defaulted: Config) => Config);
  /** The path of the error the invalid file must get. */
  field: string;
  /** The gates before the file's own apply: for rules on gates that 1.28 locks on, a build where they are off. */
  gates?: FeatureGateSet;
}

/** The built-in gates with some set otherwise, locked or not (as in an older release). */
const gatesWith = (values: Record<string, boolean>): FeatureGateSet => FeatureGateSet.of(undefined, values);

const rules: RuleCase[] = [
  // Servers.
  { rule: 'port is 1 to 65535', valid: { port: 443 }, invalid: { port: 70000 }, field: 'port' },
  { rule: 'port is not negative', valid: { port: 1 }, invalid: { port: -1 }, field: 'port' },
  { rule: 'readOnlyPort is 1 to 65535 when enabled', valid: { readOnlyPort: 10255 }, invalid: { readOnlyPort: 65536 }, field: 'readOnlyPort' },
  { rule: 'healthzPort is 1 to 65535 or 0', valid: { healthzPort: 0 }, invalid: { healthzPort: -2 }, field: 'healthzPort' },
  { rule: 'tlsMinVersion is a TLS version', valid: { tlsMinVersion: 'VersionTLS12' }, invalid: { tlsMinVersion: 'TLS1.2' }, field: 'tlsMinVersion' },
  { rule: 'tlsCipherSuites are known suites', valid: { tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] }, invalid: { tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_NOPE'] }, field: 'tlsCipherSuites[1]' },
  { rule: 'TLS 1.3 suites are not configurable', valid: { tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'] }, invalid: { tlsCipherSuites: ['TLS_AES_128_GCM_SHA256'] }, field: 'tlsCipherSuites[0]' },
  { rule: 'no cipher suites with tlsMinVersion VersionTLS13', valid: { tlsMinVersion: 'VersionTLS13' }, invalid: { tlsMinVersion: 'VersionTLS13', tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'] }, field: 'tlsCipherSuites' },
  { rule: 'serverTLSBootstrap needs the server-certificate rotation gate', valid: { serverTLSBootstrap: true }, invalid: { serverTLSBootstrap: true, featureGates: { RotateAgentServerCertificate: false } }, field: 'serverTLSBootstrap' },
  { rule: 'authorization.mode is AlwaysAllow or Webhook', valid: { authorization: { mode: 'AlwaysAllow' } }, invalid: { authorization: { mode: 'RBAC' } }, field: 'authorization.mode' },
  { rule: 'enableContentionProfiling needs enableDebuggingHandlers', valid: { enableContentionProfiling: true }, invalid: { enableContentionProfiling: true, enableDebuggingHandlers: false }, field: 'enableContentionProfiling' },
  { rule: 'enableSystemLogQuery needs enableSystemLogHandler', valid: { enableSystemLogQuery: true, featureGates: { NodeLogQuery: true } }, invalid: { enableSystemLogQuery: true, enableSystemLogHandler: false, featureGates: { NodeLogQuery: true } }, field: 'enableSystemLogQuery' },
  { rule: 'enableSystemLogQuery needs the NodeLogQuery gate', valid: { enableSystemLogQuery: false }, invalid: { enableSystemLogQuery: true }, field: 'enableSystemLogQuery' },
  // Rates and counts.
  { rule: 'registryPullQPS is not negative', valid: { registryPullQPS: 0 }, invalid: { registryPullQPS: -1 }, field: 'registryPullQPS' },
  { rule: 'registryBurst is not negative', valid: { registryBurst: 1 }, invalid: { registryBurst: -1 }, field: 'registryBurst' },
  { rule: 'eventRecordQPS is not negative', valid: { eventRecordQPS: 0 }, invalid: { eventRecordQPS: -5 }, field: 'eventRecordQPS' },
  { rule: 'eventBurst is not negative', valid: { eventBurst: 3 }, invalid: { eventBurst: -1 }, field: 'eventBurst' },
  { rule: 'platAPIQPS is not negative', valid: { platAPIQPS: 0 }, invalid: { platAPIQPS: -1 }, field: 'platAPIQPS' },
  { rule: 'platAPIBurst is not negative', valid: { platAPIBurst: 200 }, invalid: { platAPIBurst: -1 }, field: 'platAPIBurst' },
  { rule: 'oomScoreAdj is -1000 to 1000', valid: { oomScoreAdj: -1000 }, invalid: { oomScoreAdj: 1001 }, field: 'oomScoreAdj' },
  { rule: 'nodeLeaseDurationSeconds is greater than 0', valid: { nodeLeaseDurationSeconds: 1 }, invalid: { nodeLeaseDurationSeconds: -5 }, field: 'nodeLeaseDurationSeconds' },
  { rule: 'maxPods is not negative', valid: { maxPods: 250 }, invalid: { maxPods: -1 }, field: 'maxPods' },
  { rule: 'podsPerCore is not negative', valid: { podsPerCore: 0 }, invalid: { podsPerCore: -1 }, field: 'podsPerCore' },
  { rule: 'podsPerCore is not above maxPods', valid: { maxPods: 10, podsPerCore: 10 }, invalid: { maxPods: 10, podsPerCore: 11 }, field: 'podsPerCore' },
  { rule: 'nodeStatusMaxImages is greater than -2', valid: { nodeStatusMaxImages: -1 }, invalid: { nodeStatusMaxImages: -2 }, field: 'nodeStatusMaxImages' },
  { rule: 'maxOpenFiles is not negative', valid: { maxOpenFiles: 10 }, invalid: { maxOpenFiles: -1 }, field: 'maxOpenFiles' },
  { rule: 'iptablesMasqueradeBit is 0 to 31', valid: { iptablesMasqueradeBit: 0 }, invalid: { iptablesMasqueradeBit: 32 }, field: 'iptablesMasqueradeBit' },
  { rule: 'iptablesDropBit is 0 to 31', valid: { iptablesDropBit: 31 }, invalid: { iptablesDropBit: -1 }, field: 'iptablesDropBit' },
  // Images.
  { rule: 'imageGCHighThresholdPercent is 0 to 100', valid: { imageGCHighThresholdPercent: 100 }, invalid: { imageGCHighThresholdPercent: 101 }, field: 'imageGCHighThresholdPercent' },
  { rule: 'imageGCLowThresholdPercent is 0 to 100', valid: { imageGCLowThresholdPercent: 0 }, invalid: { imageGCLowThresholdPercent: -1 }, field: 'imageGCLowThresholdPercent' },
  { rule: 'imageGCLowThresholdPercent is less than the high threshold', valid: { imageGCHighThresholdPercent: 90, imageGCLowThresholdPercent: 89 }, invalid: { imageGCHighThresholdPercent: 80, imageGCLowThresholdPercent: 80 }, field: 'imageGCLowThresholdPercent' },
  { rule: 'maxParallelImagePulls is positive', valid: { maxParallelImagePulls: 1 }, invalid: { maxParallelImagePulls: 0 }, field: 'maxParallelImagePulls' },
  { rule: 'maxParallelImagePulls above 1 needs serializeImagePulls false', valid: { maxParallelImagePulls: 5, serializeImagePulls: false }, invalid: { maxParallelImagePulls: 5, serializeImagePulls: true }, field: 'maxParallelImagePulls' },
  { rule: 'containerLogMaxSize is a quantity', valid: { containerLogMaxSize: '5Mi' }, invalid: { containerLogMaxSize: '5MB' }, field: 'containerLogMaxSize' },
  { rule: 'containerLogMaxSize is above zero', valid: { containerLogMaxSize: '1' }, invalid: { containerLogMaxSize: '-1Mi' }, field: 'containerLogMaxSize' },
  { rule: 'containerLogMaxFiles is above 1', valid: { containerLogMaxFiles: 2 }, invalid: { containerLogMaxFiles: 1 }, field: 'containerLogMaxFiles' },
  // Cgroups and managers.
  { rule: 'cgroupDriver is cgroupfs or systemd', valid: { cgroupDriver: 'systemd' }, invalid: { cgroupDriver: 'cgroupv2' }, field: 'cgroupDriver' },
  { rule: 'systemCgroups requires cgroupRoot', valid: { systemCgroups: '/system.slice', cgroupRoot: '/' }, invalid: { systemCgroups: '/system.slice' }, field: 'systemCgroups' },
  { rule: 'cpuManagerPolicy is none or static', valid: { cpuManagerPolicy: 'static' }, invalid: { cpuManagerPolicy: 'dynamic' }, field: 'cpuManagerPolicy' },
  { rule: 'cpuManagerPolicy needs the CPUManager gate', valid: { cpuManagerPolicy: 'None' }, invalid: { cpuManagerPolicy: 'static' }, field: 'cpuManagerPolicy', gates: gatesWith({ CPUManager: false }) },
  { rule: 'cpuManagerPolicyOptions needs the CPUManagerPolicyOptions gate', valid: { cpuManagerPolicyOptions: { 'full-pcpus-only': 'true' } }, invalid: { cpuManagerPolicyOptions: { 'full-pcpus-only': 'true' }, featureGates: { CPUManagerPolicyOptions: false } }, field: 'cpuManagerPolicyOptions' },
  { rule: 'cpuManagerPolicyOptions needs the CPUManager gate', valid: {}, invalid: { cpuManagerPolicyOptions: { 'full-pcpus-only': 'true' } }, field: 'cpuManagerPolicyOptions', gates: gatesWith({ CPUManager: false }) },
  { rule: 'memoryManagerPolicy is none or static', valid: { memoryManagerPolicy: 'Static' }, invalid: { memoryManagerPolicy: 'Dynamic' }, field: 'memoryManagerPolicy' },
  { rule: 'memoryManagerPolicy needs the MemoryManager gate', valid: { memoryManagerPolicy: 'None', featureGates: { MemoryManager: false } }, invalid: { memoryManagerPolicy: 'Static', featureGates: { MemoryManager: false } }, field: 'memoryManagerPolicy' },
  { rule: 'topologyManagerPolicy is a known policy', valid: { topologyManagerPolicy: 'single-numa-node' }, invalid: { topologyManagerPolicy: 'strict' }, field: 'topologyManagerPolicy' },
  { rule: 'topologyManagerScope is container or pod', valid: { topologyManagerScope: 'pod' }, invalid: { topologyManagerScope: 'node' }, field: 'topologyManagerScope' },
  { rule: 'topologyManagerPolicyOptions needs the TopologyManagerPolicyOptions gate', valid: { topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' } }, invalid: { topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' }, featureGates: { TopologyManagerPolicyOptions: false } }, field: 'topologyManagerPolicyOptions' },
  { rule: 'topologyManagerPolicyOptions needs the TopologyManager gate', valid: {}, invalid: { topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' } }, field: 'topologyManagerPolicyOptions', gates: gatesWith({ TopologyManager: false }) },
  { rule: 'CPUManager is locked on in 1.28', valid: { featureGates: { CPUManager: true } }, invalid: { featureGates: { CPUManager: false } }, field: 'featureGates[CPUManager]' },
  { rule: 'TopologyManager is locked on in 1.28', valid: { featureGates: { TopologyManager: true } }, invalid: { featureGates: { TopologyManager: false } }, field: 'featureGates[TopologyManager]' },
  { rule: 'qosReserved needs the QOSReserved gate', valid: { qosReserved: { memory: '50%' }, featureGates: { QOSReserved: true } }, invalid: { qosReserved: { memory: '50%' } }, field: 'qosReserved' },
  { rule: 'qosReserved covers memory only', valid: { qosReserved: { memory: '100%' }, featureGates: { QOSReserved: true } }, invalid: { qosReserved: { cpu: '50%' }, featureGates: { QOSReserved: true } }, field: 'qosReserved[cpu]' },
  { rule: 'qosReserved is a percentage 0 to 100', valid: { qosReserved: { memory: '0%' }, featureGates: { QOSReserved: true } }, invalid: { qosReserved: { memory: '150%' }, featureGates: { QOSReserved: true } }, field: 'qosReserved[memory]' },
  { rule: 'cpuCFSQuotaPeriod other than 100ms needs the CustomCPUCFSQuotaPeriod gate', valid: { cpuCFSQuotaPeriod: 100 }, invalid: { cpuCFSQuotaPeriod: 50 }, field: 'cpuCFSQuotaPeriod' },
  { rule: 'cpuCFSQuotaPeriod is 1ms to 1s', valid: { cpuCFSQuotaPeriod: 50, featureGates: { CustomCPUCFSQuotaPeriod: true } }, invalid: { cpuCFSQuotaPeriod: 2 * s, featureGates: { CustomCPUCFSQuotaPeriod: true } }, field: 'cpuCFSQuotaPeriod' },
  { rule: 'memoryThrottlingFactor is above 0 and at most 1', valid: { memoryThrottlingFactor: 1 }, invalid: { memoryThrottlingFactor: 0 }, field: 'memoryThrottlingFactor' },
  { rule: 'memorySwap needs the NodeSwap gate', valid: { memorySwap: { swapBehavior: 'LimitedSwap' }, featureGates: { NodeSwap: true } }, invalid: { memorySwap: { swapBehavior: 'LimitedSwap' } }, field: 'memorySwap.swapBehavior' },
  { rule: 'swapBehavior is LimitedSwap or UnlimitedSwap', valid: { memorySwap: { swapBehavior: 'UnlimitedSwap' }, featureGates: { NodeSwap: true } }, invalid: { memorySwap: { swapBehavior: 'AllTheSwap' }, featureGates: { NodeSwap: true } }, field: 'memorySwap.swapBehavior' },
  // Allocatable.
  { rule: 'systemReserved covers cpu and memory', valid: { systemReserved: { cpu: '500m', memory: '1Gi' } }, invalid: { systemReserved: { 'ephemeral-storage': '1Gi' } }, field: 'systemReserved[ephemeral-storage]' },
  { rule: 'systemReserved values are quantities', valid: { systemReserved: { memory: '1G' } }, invalid: { systemReserved: { memory: '1GB' } }, field: 'systemReserved[memory]' },
  { rule: 'platReserved covers cpu, memory and root storage', valid: { platReserved: { cpu: '1', memory: '2Gi', 'ephemeral-storage': '10Gi' } }, invalid: { platReserved: { pid: '1000' } }, field: 'platReserved[pid]' },
  { rule: 'platReserved values are not negative', valid: { platReserved: { cpu: '0' } }, invalid: { platReserved: { cpu: '-1' } }, field: 'platReserved[cpu]' },
  { rule: 'reservedSystemCPUs is a CPU list', valid: { reservedSystemCPUs: '0-1,4' }, invalid: { reservedSystemCPUs: '3-1' }, field: 'reservedSystemCPUs' },
  { rule: 'reservedSystemCPUs is incompatible with the reserved cgroups', valid: { reservedSystemCPUs: '0', systemReserved: { cpu: '1' } }, invalid: { reservedSystemCPUs: '0', platReservedCgroup: '/plat.slice' }, field: 'reservedSystemCPUs' },
  { rule: 'enforceNodeAllocatable has known values', valid: { enforceNodeAllocatable: ['pods', 'system-reserved'], systemReservedCgroup: '/system.slice' }, invalid: { enforceNodeAllocatable: ['kube-reserved'] }, field: 'enforceNodeAllocatable[0]' },
  { rule: 'system-reserved enforcement needs systemReservedCgroup', valid: { enforceNodeAllocatable: ['system-reserved'], systemReservedCgroup: '/system.slice' }, invalid: { enforceNodeAllocatable: ['system-reserved'] }, field: 'systemReservedCgroup' },
  { rule: 'plat-reserved enforcement needs platReservedCgroup', valid: { enforceNodeAllocatable: ['plat-reserved'], platReservedCgroup: '/plat.slice' }, invalid: { enforceNodeAllocatable: ['plat-reserved'] }, field: 'platReservedCgroup' },
  { rule: 'enforcement "none" stands alone', valid: { enforceNodeAllocatable: ['none'], cgroupsPerQOS: false }, invalid: { enforceNodeAllocatable: ['none', 'pods'] }, field: 'enforceNodeAllocatable[0]' },
  { rule: 'enforcements are not repeated', valid: { enforceNodeAllocatable: ['pods'] }, invalid: { enforceNodeAllocatable: ['pods', 'pods'] }, field: 'enforceNodeAllocatable[1]' },
  { rule: 'enforcements need cgroupsPerQOS', valid: { enforceNodeAllocatable: [], cgroupsPerQOS: false }, invalid: { cgroupsPerQOS: false }, field: 'enforceNodeAllocatable[0]' },
  { rule: 'reservedMemory limits are memory or hugepages', valid: { reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi', 'hugepages-2Mi': '4Mi' } }] }, invalid: { reservedMemory: [{ numaNode: 0, limits: { cpu: '1' } }] }, field: 'reservedMemory[0].limits[cpu]' },
  { rule: 'reservedMemory limits are not zero', valid: { reservedMemory: [{ numaNode: 1, limits: { memory: '1' } }] }, invalid: { reservedMemory: [{ numaNode: 1, limits: { memory: '0' } }] }, field: 'reservedMemory[0].limits[memory]' },
  { rule: 'reservedMemory has one limit per NUMA node and resource', valid: { reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }, { numaNode: 1, limits: { memory: '1Gi' } }] }, invalid: { reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }, { numaNode: 0, limits: { memory: '2Gi' } }] }, field: 'reservedMemory[1].limits[memory]' },
  { rule: 'reservedMemory numaNode is required', valid: { reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }] }, invalid: { reservedMemory: [{ limits: { memory: '1Gi' } }] }, field: 'reservedMemory[0].numaNode' },
  { rule: 'reservedMemory limits are required', valid: { reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }] }, invalid: { reservedMemory: [{ numaNode: 0 }] }, field: 'reservedMemory[0].limits' },
  // Eviction.
  { rule: 'evictionHard signals are known', valid: { evictionHard: { 'memory.available': '200Mi', 'pid.available': '5%' } }, invalid: { evictionHard: { 'memory.free': '1Gi' } }, field: 'evictionHard[memory.free]' },
  { rule: 'eviction percentages are 0% to 100%', valid: { evictionHard: { 'nodefs.available': '0%' } }, invalid: { evictionHard: { 'nodefs.available': '110%' } }, field: 'evictionHard[nodefs.available]' },
  { rule: 'eviction quantities are positive', valid: { evictionHard: { 'memory.available': '1' } }, invalid: { evictionHard: { 'memory.available': '0' } }, field: 'evictionHard[memory.available]' },
  { rule: 'evictionSoft thresholds need a grace period', valid: { evictionSoft: { 'memory.available': '1Gi' }, evictionSoftGracePeriod: { 'memory.available': '1m30s' } }, invalid: { evictionSoft: { 'memory.available': '1Gi' } }, field: 'evictionSoftGracePeriod[memory.available]' },
  { rule: 'evictionSoftGracePeriod values are durations', valid: { evictionSoftGracePeriod: { 'memory.available': '30s' } }, invalid: { evictionSoftGracePeriod: { 'memory.available': 'soon' } }, field: 'evictionSoftGracePeriod[memory.available]' },
  { rule: 'evictionMinimumReclaim is not negative', valid: { evictionMinimumReclaim: { 'imagefs.available': '2Gi' } }, invalid: { evictionMinimumReclaim: { 'imagefs.available': '-2Gi' } }, field: 'evictionMinimumReclaim[imagefs.available]' },
  // Shutdown.
  { rule: 'shutdownGracePeriod needs the GracefulNodeShutdown gate', valid: { shutdownGracePeriod: 30 * s }, invalid: { shutdownGracePeriod: 30 * s, featureGates: { GracefulNodeShutdown: false } }, field: 'shutdownGracePeriod' },
  { rule: 'shutdownGracePeriod is zero or at least 1s', valid: { shutdownGracePeriod: 1 * s }, invalid: { shutdownGracePeriod: 500 }, field: 'shutdownGracePeriod' },
  { rule: 'shutdownGracePeriodCriticalPods is less than shutdownGracePeriod', valid: { shutdownGracePeriod: 30 * s, shutdownGracePeriodCriticalPods: 10 * s }, invalid: { shutdownGracePeriod: 30 * s, shutdownGracePeriodCriticalPods: 30 * s }, field: 'shutdownGracePeriodCriticalPods' },
  { rule: 'shutdownGracePeriodByPodPriority is empty when a shutdown period is set', valid: { shutdownGracePeriodByPodPriority: [{ priority: 0, shutdownGracePeriodSeconds: 30 }] }, invalid: { shutdownGracePeriodByPodPriority: [{ priority: 0, shutdownGracePeriodSeconds: 30 }], shutdownGracePeriod: 30 * s }, field: 'shutdownGracePeriodByPodPriority' },
  { rule: 'shutdownGracePeriodByPodPriority needs the GracefulNodeShutdown gate', valid: { featureGates: { GracefulNodeShutdown: false } }, invalid: { shutdownGracePeriodByPodPriority: [{ priority: 0, shutdownGracePeriodSeconds: 30 }], featureGates: { GracefulNodeShutdown: false } }, field: 'shutdownGracePeriodByPodPriority' },
  { rule: 'shutdownGracePeriodByPodPriority entries have their required fields', valid: { shutdownGracePeriodByPodPriority: [{ priority: 10000, shutdownGracePeriodSeconds: 20 }] }, invalid: { shutdownGracePeriodByPodPriority: [{ priority: 10000 }] }, field: 'shutdownGracePeriodByPodPriority[0].shutdownGracePeriodSeconds' },
  // Logging and tracing.
  { rule: 'logging.format is text or json', valid: { logging: { format: 'json' } }, invalid: { logging: { format: 'xml' } }, field: 'logging.format' },
  { rule: 'logging.format json needs the LoggingBetaOptions gate', valid: { logging: { format: 'text' }, featureGates: { LoggingBetaOptions: false } }, invalid: { logging: { format: 'json' }, featureGates: { LoggingBetaOptions: false } }, field: 'logging.format' },
  { rule: 'logging.verbosity fits in an int32', valid: { logging: { verbosity: 10 } }, invalid: { logging: { verbosity: 2 ** 31 } }, field: 'logging.verbosity' },
  { rule: 'logging.vmodule is for the text format only', valid: { logging: { vmodule: [{ filePattern: 'server*', verbosity: 4 }] } }, invalid: { logging: { format: 'json', vmodule: [{ filePattern: 'server*', verbosity: 4 }] } }, field: 'logging.vmodule' },
  { rule: 'logging.vmodule file patterns have no = or ,', valid: { logging: { vmodule: [{ filePattern: 'gopher*', verbosity: 3 }] } }, invalid: { logging: { vmodule: [{ filePattern: 'a=b', verbosity: 3 }] } }, field: 'logging.vmodule[0]' },
  { rule: 'logging.vmodule file patterns are not empty', valid: { logging: { vmodule: [{ filePattern: 'x', verbosity: 1 }] } }, invalid: { logging: { vmodule: [{ verbosity: 1 }] } }, field: 'logging.vmodule[0]' },
  { rule: 'logging.options.json.splitStream needs the LoggingAlphaOptions gate', valid: { logging: { options: { json: { splitStream: true } } }, featureGates: { LoggingAlphaOptions: true } }, invalid: { logging: { options: { json: { splitStream: true } } } }, field: 'logging.options.json.splitStream' },
  { rule: 'logging.options.json.infoBufferSize needs the LoggingAlphaOptions gate', valid: { logging: { options: { json: { infoBufferSize: '64Ki' } } }, featureGates: { LoggingAlphaOptions: true } }, invalid: { logging: { options: { json: { infoBufferSize: '64Ki' } } } }, field: 'logging.options.json.infoBufferSize' },
  { rule: 'logging.options.json.infoBufferSize is a quantity', valid: { logging: { options: { json: { infoBufferSize: '0' } } } }, invalid: { logging: { options: { json: { infoBufferSize: 'lots' } } } }, field: 'logging.options.json.infoBufferSize' },
  { rule: 'tracing needs the AgentTracing gate', valid: { tracing: { endpoint: 'localhost:4317' } }, invalid: { tracing: { endpoint: 'localhost:4317' }, featureGates: { AgentTracing: false } }, field: 'tracing' },
  { rule: 'tracing.samplingRatePerMillion is at most one million', valid: { tracing: { samplingRatePerMillion: 1_000_000 } }, invalid: { tracing: { samplingRatePerMillion: 1_000_001 } }, field: 'tracing.samplingRatePerMillion' },
  { rule: 'tracing.samplingRatePerMillion is not negative', valid: { tracing: { samplingRatePerMillion: 0 } }, invalid: { tracing: { samplingRatePerMillion: -1 } }, field: 'tracing.samplingRatePerMillion' },
  { rule: 'tracing.endpoint is a URL', valid: { tracing: { endpoint: 'http://collector:4317' } }, invalid: { tracing: { endpoint: 'http://[::1' } }, field: 'tracing.endpoint' },
  // The node.
  { rule: 'registerWithTaints keys are qualified names', valid: { registerWithTaints: [{ key: 'example.com/dedicated', value: 'gpu', effect: 'NoSchedule' }] }, invalid: { registerWithTaints: [{ key: 'bad key!', effect: 'NoSchedule' }] }, field: 'registerWithTaints[0].key' },
  { rule: 'registerWithTaints keys are required', valid: { registerWithTaints: [{ key: 'k' }] }, invalid: { registerWithTaints: [{ effect: 'NoSchedule' }] }, field: 'registerWithTaints[0].key' },
  { rule: 'registerWithTaints values are label values', valid: { registerWithTaints: [{ key: 'k', value: 'v-1' }] }, invalid: { registerWithTaints: [{ key: 'k', value: 'not a value' }] }, field: 'registerWithTaints[0].value' },
  { rule: 'registerWithTaints effects are known', valid: { registerWithTaints: [{ key: 'k', effect: 'NoExecute' }] }, invalid: { registerWithTaints: [{ key: 'k', effect: 'Sometimes' }] }, field: 'registerWithTaints[0].effect' },
  { rule: 'registerWithTaints have no timeAdded', valid: { registerWithTaints: [{ key: 'k', effect: 'PreferNoSchedule' }] }, invalid: { registerWithTaints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2024-01-01T00:00:00Z' }] }, field: 'registerWithTaints[0].timeAdded' },
  { rule: 'allowedUnsafeSysctls are namespaced sysctls or patterns', valid: { allowedUnsafeSysctls: ['kernel.msg*', 'net.ipv4.route.min_pmtu', 'kernel.sem', 'fs.mqueue.*'] }, invalid: { allowedUnsafeSysctls: ['kernel.hostname'] }, field: 'allowedUnsafeSysctls[0]' },
  { rule: 'allowedUnsafeSysctls patterns end in *', valid: { allowedUnsafeSysctls: ['net.*'] }, invalid: { allowedUnsafeSysctls: ['net.*', 'net.*.foo'] }, field: 'allowedUnsafeSysctls[1]' },
  { rule: 'hairpinMode is a known mode', valid: { hairpinMode: 'hairpin-veth' }, invalid: { hairpinMode: 'bridge' }, field: 'hairpinMode' },
  { rule: 'configMapAndSecretChangeDetectionStrategy is Get, Cache or Watch', valid: { configMapAndSecretChangeDetectionStrategy: 'Cache' }, invalid: { configMapAndSecretChangeDetectionStrategy: 'Poll' }, field: 'configMapAndSecretChangeDetectionStrategy' },
  { rule: 'showHiddenMetricsForVersion is the previous minor version', valid: { showHiddenMetricsForVersion: '1.27' }, invalid: { showHiddenMetricsForVersion: '1.26' }, field: 'showHiddenMetricsForVersion' },
  { rule: 'featureGates names known gates', valid: { featureGates: { NodeSwap: true } }, invalid: { featureGates: { NoSuchGate: true } }, field: 'featureGates[NoSuchGate]' },
  { rule: 'containerRuntimeEndpoint is required', valid: { containerRuntimeEndpoint: 'unix:///run/crio/crio.sock' }, invalid: (c) => ({ ...c, containerRuntimeEndpoint: '' }), field: 'containerRuntimeEndpoint' },
];

for (const { rule, valid, invalid, field, gates } of rules) {
  const options = gates ? { featureGates: gates } : {};
  test(`validation: ${rule}: valid`, () => {
    assert.deepEqual(validateNodeAgentConfiguration(setDefaults(valid), options).map(String), []);
  });
  test(`validation: ${rule}: invalid at ${field}`, () => {
    const config = typeof invalid === 'function' ? invalid(setDefaults(valid)) : setDefaults(invalid);
    const errors = validateNodeAgentConfiguration(config, options);
    assert.ok(
      errors.some((error) => error.field === field),
      `expected an error at ${field}, got:\n  ${errors.map(String).join('\n  ') || '(none)'}`,
    );
  });
}

// Whole messages for files that kubelet 1.28 judges in a way the rules above cannot show: what it accepts, and what each error says.
const messageCases: { name: string; config: Config; errors: string[] }[] = [
  // kubelet 1.28 has no rule for imageMinimumGCAge (the "must not be negative" check came with imageMaximumGCAge, later).
  { name: 'a negative imageMinimumGCAge is accepted', config: { imageMinimumGCAge: -60 * s }, errors: [] },
  { name: 'a negative maxPods is not compared with podsPerCore 0 (no limit)', config: { maxPods: -1 }, errors: ['maxPods: Invalid value: -1: must not be a negative number'] },
  { name: 'a negative maxPods is not compared with a podsPerCore either', config: { maxPods: -1, podsPerCore: 5 }, errors: ['maxPods: Invalid value: -1: must not be a negative number'] },
  { name: 'podsPerCore above maxPods', config: { maxPods: 10, podsPerCore: 11 }, errors: ['podsPerCore: Invalid value: 11: must not be greater than maxPods (10)'] },
  { name: 'podsPerCore equal to maxPods is valid', config: { maxPods: 10, podsPerCore: 10 }, errors: [] },
  // component-base reports each vmodule entry's errors at the entry.
  { name: 'an empty vmodule file pattern', config: { logging: { vmodule: [{ filePattern: '', verbosity: 2 }] } }, errors: ['logging.vmodule[0]: Required value: File pattern must not be empty'] },
  { name: 'a vmodule entry without a file pattern', config: { logging: { vmodule: [{ filePattern: 'ok', verbosity: 1 }, { verbosity: 2 }] } }, errors: ['logging.vmodule[1]: Required value: File pattern must not be empty'] },
  { name: 'vmodule file patterns with = or ,', config: { logging: { vmodule: [{ filePattern: 'foo,bar', verbosity: 1 }, { filePattern: 'foo=bar', verbosity: 1 }] } }, errors: ['logging.vmodule[0]: Invalid value: "foo,bar": File pattern must not contain equal sign or comma', 'logging.vmodule[1]: Invalid value: "foo=bar": File pattern must not contain equal sign or comma'] },
  { name: 'a vmodule verbosity beyond int32', config: { logging: { vmodule: [{ filePattern: 'gopher*', verbosity: 2 ** 31 }] } }, errors: ['logging.vmodule[0]: Invalid value: 2147483648: Must be <= 2147483647'] },
  { name: 'vmodule with the json format', config: { logging: { format: 'json', vmodule: [{ filePattern: 'gopher*', verbosity: 1 }] } }, errors: ['logging.vmodule: Forbidden: Only supported for text log format'] },
  // Serialized pulls go one at a time, which a limit of 1 agrees with.
  { name: 'maxParallelImagePulls 1 with serializeImagePulls true is valid', config: { maxParallelImagePulls: 1, serializeImagePulls: true }, errors: [] },
  { name: 'maxParallelImagePulls 1 alone is valid', config: { maxParallelImagePulls: 1 }, errors: [] },
  { name: 'maxParallelImagePulls above 1 with serializeImagePulls true', config: { maxParallelImagePulls: 3, serializeImagePulls: true }, errors: ['maxParallelImagePulls: Invalid value: 3: cannot be larger than 1 unless serializeImagePulls is set to false'] },
  { name: 'maxParallelImagePulls 0', config: { maxParallelImagePulls: 0 }, errors: ['maxParallelImagePulls: Invalid value: 0: must be a positive number'] },
  { name: 'a negative maxParallelImagePulls with serializeImagePulls true', config: { maxParallelImagePulls: -2, serializeImagePulls: true }, errors: ['maxParallelImagePulls: Invalid value: -2: must be a positive number'] },
];

for (const { name, config, errors } of messageCases) {
  test(`validation message: ${name}`, () => {
    assert.deepEqual(validateNodeAgentConfiguration(setDefaults(config)).map(String), errors);
  });
}

test('validation: the defaults are valid', () => {
  assert.deepEqual(validateNodeAgentConfiguration(setDefaults({})), []);
});

test('validation: every error is reported together, each with its path and message', () => {
  const errors = validateNodeAgentConfiguration(
    setDefaults({ port: 70000, oomScoreAdj: -1001, imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60, cgroupDriver: 'nope', featureGates: { Bogus: true } }),
  );
  assert.deepEqual(errors.map(String), [
    'featureGates[Bogus]: Invalid value: "Bogus": unrecognized feature gate',
    'port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    'oomScoreAdj: Invalid value: -1001: must be between -1000 and 1000, inclusive',
    'imageGCLowThresholdPercent: Invalid value: 60: must be less than imageGCHighThresholdPercent (50)',
    'cgroupDriver: Unsupported value: "nope": supported values: "cgroupfs", "systemd"',
  ]);
});
