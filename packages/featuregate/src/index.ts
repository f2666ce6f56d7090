export { FeatureGate, allAlpha, allBeta, parseFeatureGatePairs, type FeatureSpec, type FixedBehaviour, type GateError, type Stage } from './feature-gate.js';
export { clusterFeatureGates, type ClusterFeature } from './cluster-gates.js';
export { agentFeatureGates, type AgentFeature } from './agent-gates.js';
