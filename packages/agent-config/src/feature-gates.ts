// The node agent's feature gates with their Kubernetes 1.28 defaults, and the set a configuration's featureGates map turns on or off.
import { invalid, newPath, type FieldError } from '@plat/apimachinery';

export type Stage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  readonly default: boolean;
  readonly stage: Stage;
  /** The gate can no longer be changed (a GA gate whose feature is always on: 9.2's non-operational gate). */
  readonly lockToDefault?: boolean;
}

/**
 * The gates whose names the configuration's rules mention; alpha off, beta and GA on, as in kubelet
 * 1.28, where CPUManager (GA in 1.26) and TopologyManager (GA in 1.27) are locked to true.
 */
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

  /**
   * This set with a configuration's featureGates applied: an error for each name it does not know
   * and each locked gate set against its lock, and upstream's warning for each GA or deprecated
   * gate set at all (9.2 rule 9: such a gate is on its way out).
   */
  withOverrides(overrides: Readonly<Record<string, boolean>> | undefined): { gates: FeatureGateSet; errors: FieldError[]; warnings: string[] } {
    const errors: FieldError[] = [];
    const warnings: string[] = [];
    const merged: Record<string, boolean> = Object.fromEntries(this.values);
    for (const [name, value] of Object.entries(overrides ?? {})) {
      const path = newPath('featureGates').key(name);
      const spec = Object.hasOwn(this.known, name) ? this.known[name]! : undefined;
      if (!spec) {
        errors.push(invalid(path, name, 'unrecognized feature gate'));
      } else if (spec.lockToDefault && value !== spec.default) {
        errors.push(invalid(path, value, `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`));
      } else {
        merged[name] = value;
        if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
        if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      }
    }
    return { gates: new FeatureGateSet(this.known, merged), errors, warnings };
  }
}
