// The node agent's feature gates with their Kubernetes 1.28 defaults, and the set a configuration's featureGates map turns on or off.
import { invalid, newPath, type FieldError } from '@plat/apimachinery';

export type Stage = 'ALPHA' | 'BETA' | 'GA';

export interface FeatureSpec {
  readonly default: boolean;
  readonly stage: Stage;
}

/** The gates whose names the configuration's rules mention; alpha off, beta and GA on, as in kubelet 1.28. */
export const agentFeatureGates = {
  CPUManager: { default: true, stage: 'GA' },
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
  TopologyManager: { default: true, stage: 'GA' },
  TopologyManagerPolicyOptions: { default: true, stage: 'BETA' },
} as const satisfies Record<string, FeatureSpec>;

export type AgentFeature = keyof typeof agentFeatureGates;

/** Which features are on: the known defaults overlaid with a configuration's featureGates. */
export class FeatureGateSet {
  private readonly values: ReadonlyMap<string, boolean>;

  constructor(
    private readonly known: Readonly<Record<string, FeatureSpec>> = agentFeatureGates,
    overrides: Readonly<Record<string, boolean>> = {},
  ) {
    const values = new Map(Object.entries(known).map(([name, spec]) => [name, spec.default]));
    for (const [name, value] of Object.entries(overrides)) if (Object.hasOwn(known, name)) values.set(name, value);
    this.values = values;
  }

  enabled(name: AgentFeature): boolean {
    return this.values.get(name) ?? false;
  }

  /** This set with a configuration's featureGates applied, and an error for each name it does not know. */
  withOverrides(overrides: Readonly<Record<string, boolean>> | undefined): { gates: FeatureGateSet; errors: FieldError[] } {
    const errors: FieldError[] = [];
    const merged: Record<string, boolean> = Object.fromEntries(this.values);
    for (const [name, value] of Object.entries(overrides ?? {})) {
      if (Object.hasOwn(this.known, name)) merged[name] = value;
      else errors.push(invalid(newPath('featureGates').key(name), name, 'unrecognized feature gate'));
    }
    return { gates: new FeatureGateSet(this.known, merged), errors };
  }
}
