// The node agent's gates: the Kubernetes 1.28 kubelet gates its configuration's rules name (the
// kubelet's names, Kubelet* ones as Agent*), alpha off, beta and GA on, CPUManager (GA in 1.26)
// and TopologyManager (GA in 1.27) locked to true as in kubelet 1.28.
import type { FeatureSpec } from './feature-gate.js';

export const agentFeatureGates = {
  CPUManager: { default: true, stage: 'GA', lockToDefault: true },
  CPUManagerPolicyOptions: { default: true, stage: 'BETA' },
  CustomCPUCFSQuotaPeriod: { default: false, stage: 'ALPHA' },
  GracefulNodeShutdown: { default: true, stage: 'BETA' },
  GracefulNodeShutdownBasedOnPodPriority: { default: true, stage: 'BETA' },
  AgentTracing: { default: true, stage: 'BETA' },
  LoggingAlphaOptions: { default: false, stage: 'ALPHA' },
  LoggingBetaOptions: { default: true, stage: 'BETA' },
  MemoryManager: { default: true, stage: 'BETA' },
  MemoryQoS: { default: false, stage: 'ALPHA' },
  NodeLogQuery: { default: false, stage: 'ALPHA' },
  NodeSwap: { default: false, stage: 'BETA' },
  QOSReserved: { default: false, stage: 'ALPHA' },
  RotateAgentServerCertificate: { default: true, stage: 'BETA' },
  TopologyManager: { default: true, stage: 'GA', lockToDefault: true },
  TopologyManagerPolicyOptions: { default: true, stage: 'BETA' },
} as const satisfies Record<string, FeatureSpec>;


export type AgentFeature = keyof typeof agentFeatureGates;
