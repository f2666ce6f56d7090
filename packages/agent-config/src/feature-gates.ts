// The node agent's feature gates (@plat/featuregate's agent table and rules) as a configuration
// file's featureGates map sets them, its refusals reported as field errors of that map.
import { invalid, newPath, type FieldError } from '@plat/apimachinery';
import { FeatureGate, agentFeatureGates, type AgentFeature, type FeatureSpec } from '@plat/featuregate';

export { agentFeatureGates, type AgentFeature, type FeatureSpec };
export type { Stage } from '@plat/featuregate';

/** Which features are on: the known defaults overlaid with a configuration's featureGates. */
export class FeatureGateSet {
  private constructor(private readonly gate: FeatureGate<string>) {}

  /** The agent's gates (or others, for tests) with some already set, as a build of another release would have them. */
  static of(known: Readonly<Record<string, FeatureSpec>> = agentFeatureGates, values: Readonly<Record<string, boolean>> = {}): FeatureGateSet {
    return new FeatureGateSet(new FeatureGate(known, values));
  }

  enabled(name: AgentFeature): boolean {
    return this.gate.enabled(name);
  }

  /**
   * This set with a configuration's featureGates applied: an error for each name it does not know
   * and each locked gate set against its lock, and upstream's warning for each GA or deprecated
   * gate set at all (9.2 rule 9: such a gate is on its way out).
   */
  withOverrides(overrides: Readonly<Record<string, boolean>> | undefined): { gates: FeatureGateSet; errors: FieldError[]; warnings: string[] } {
    const { gates, errors, warnings } = this.gate.withOverrides(overrides);
    return {
      gates: new FeatureGateSet(gates),
      errors: errors.map((error) => {
        const path = newPath('featureGates').key(error.name);
        // kubelet's configuration validation names an unknown gate by its name, the others by the value refused.
        return error.reason === 'unknown' ? invalid(path, error.name, 'unrecognized feature gate') : invalid(path, error.value, error.message);
      }),
      warnings,
    };
  }
}
