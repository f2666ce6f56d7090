// The apiserver_validating_admission_policy_* metrics of kube-apiserver 1.28 (its admission/cel
// metrics.go, all ALPHA): check_total and check_duration_seconds by policy, binding, enforcement
// action and state, and definition_total by state and enforcement action. What records them is the
// plugin (policy-admission.ts) and the policy source (policy-source.ts); the rules are theirs.
import type { MetricsStability } from '@plat/serving';
import { CheapCounter, CheapHistogram, type CounterSeries, type HistogramSeries } from '@plat/metrics';

/** What a failed (or, failing open, errored) validation led to: upstream's label values. */
export type EnforcementAction = 'allow' | 'deny' | 'warn' | 'audit';

/** Upstream's buckets: from about a cheap field access to an expression near the cost limit. */
const buckets = [0.0000005, 0.001, 0.01, 0.1, 1.0];

type CheckLabel = 'policy' | 'policy_binding' | 'enforcement_action' | 'state';

/** One binding's series, each resolved when first recorded. */
export class BindingCheckMetrics {
  private readonly series: Partial<Record<EnforcementAction, { count: CounterSeries; time: HistogramSeries }>> = {};

  constructor(
    private readonly metrics: PolicyMetrics,
    private readonly policy: string,
    private readonly binding: string,
  ) {}

  /** One validation's outcome under `action`, the expression having run `seconds`. */
  record(action: EnforcementAction, seconds: number): void {
    const series = (this.series[action] ??= this.metrics.resolve(this.policy, this.binding, action));
    series.count.inc();
    series.time.observe(seconds);
  }
}

export class PolicyMetrics {
  private readonly checks: CheapCounter<CheckLabel>;
  private readonly latency: CheapHistogram<CheckLabel>;
  private readonly definitionActive: CounterSeries;
  /** Series by policy and binding name: a binding replaced by the watch keeps its series. */
  private readonly bindings = new Map<string, BindingCheckMetrics>();

  constructor(stability: MetricsStability) {
    const alpha = (help: string) => stability.declare(help, { stabilityLevel: 'ALPHA' });
    const check = alpha('Validation admission policy check total, labeled by policy and further identified by binding, enforcement action taken, and state.');
    this.checks = new CheapCounter('apiserver_validating_admission_policy_check_total', check.help, ['policy', 'policy_binding', 'enforcement_action', 'state'], check.registers);
    const definition = alpha('Validation admission policy count total, labeled by state and enforcement action.');
    const definitions = new CheapCounter('apiserver_validating_admission_policy_definition_total', definition.help, ['state', 'enforcement_action'], definition.registers);
    // 1.28 counts every definition as active and enforced by deny, whatever its bindings say.
    this.definitionActive = definitions.labels({ state: 'active', enforcement_action: 'deny' });
    const latency = alpha(
      'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding, state and enforcement action taken.',
    );
    this.latency = new CheapHistogram(
      'apiserver_validating_admission_policy_check_duration_seconds',
      latency.help,
      ['policy', 'policy_binding', 'enforcement_action', 'state'],
      buckets,
      latency.registers,
    );
  }

  /** A policy this replica did not have until now (upstream: a new entry of its definitions). */
  definitionAdded(): void {
    this.definitionActive.inc();
  }

  /** The series of `binding` of `policy`. */
  binding(policy: string, binding: string): BindingCheckMetrics {
    const key = `${policy}\u0000${binding}`;
    let metrics = this.bindings.get(key);
    if (!metrics) {
      metrics = new BindingCheckMetrics(this, policy, binding);
      this.bindings.set(key, metrics);
    }
    return metrics;
  }

  /** @internal BindingCheckMetrics' series of one action. */
  resolve(policy: string, binding: string, action: EnforcementAction): { count: CounterSeries; time: HistogramSeries } {
    // 1.28 records every check with the state "active".
    const labels = { policy, policy_binding: binding, enforcement_action: action, state: 'active' };
    return { count: this.checks.labels(labels), time: this.latency.labels(labels) };
  }
}
