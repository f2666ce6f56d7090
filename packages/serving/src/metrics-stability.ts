// Metric stability as 1-conventions 9.2 (rules 9a, 9b and the paragraph after) and Kubernetes'
// component-base/metrics have it: every metric declares its class, printed at the head of its
// HELP (`[STABLE] ...`); a deprecated metric's HELP says since when (`[ALPHA] (Deprecated since
// 1.27.0) ...`), and three releases after its deprecation it is hidden (no longer exposed, still
// counted), until --show-hidden-metrics-for-version names the previous minor release. Every
// component that serves /metrics declares its metrics through one of these.
import { Counter, collectDefaultMetrics, type Registry } from 'prom-client';

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

export interface MetricStability {
  stabilityLevel: StabilityLevel;
  /** The release that deprecated the metric, `1.27.0`. */
  deprecatedVersion?: string;
}

/** The release whose rules a component follows: Kubernetes 1.28's. */
export const metricsVersion = { major: 1, minor: 28 } as const;

/** How many minor releases a deprecated metric is still shown before it is hidden. */
const SHOWN_AFTER_DEPRECATION = 3;

function parseVersion(text: string): { major: number; minor: number } | undefined {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text);
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined;
}

/** Upstream's check of --show-hidden-metrics-for-version: empty, or the previous minor release and nothing else. */
export function checkShowHiddenMetricsForVersion(value: string, current: { major: number; minor: number } = metricsVersion): string | undefined {
  if (!value) return undefined;
  const allowed = `${current.major}.${current.minor - 1}`;
  if (value !== allowed) return `--show-hidden-metrics-for-version must be omitted or have the value '${allowed}'. Only the previous minor version is allowed`;
  return undefined;
}

export interface MetricsStabilityOptions {
  /** --show-hidden-metrics-for-version; checked by the caller with checkShowHiddenMetricsForVersion. */
  showHiddenMetricsForVersion?: string;
  /** The component's release (tests move it); default metricsVersion. */
  version?: { major: number; minor: number };
}

/** Where a metric goes and what its HELP says; hidden metrics go to no registry. */
export interface DeclaredMetric {
  help: string;
  registers: Registry[];
}

export class MetricsStability {
  private readonly version: { major: number; minor: number };
  private readonly showHidden: boolean;
  private readonly registered: Counter<'stability_level' | 'deprecated_version'>;
  private readonly hiddenTotal: Counter;

  constructor(
    private readonly registry: Registry,
    options: MetricsStabilityOptions = {},
  ) {
    this.version = options.version ?? metricsVersion;
    this.showHidden = !!options.showHiddenMetricsForVersion;
    // component-base's meta metrics: what was registered, by class and deprecation, and how much is hidden.
    this.registered = new Counter({
      name: 'registered_metrics_total',
      help: '[BETA] The count of registered metrics broken by stability level and deprecation version.',
      labelNames: ['stability_level', 'deprecated_version'],
      registers: [registry],
    });
    this.hiddenTotal = new Counter({ name: 'hidden_metrics_total', help: '[BETA] The count of hidden metrics.', registers: [registry] });
  }

  /** Deprecated at or before this release (a deprecation planned for a later release does not count yet). */
  private deprecated(stability: MetricStability): { major: number; minor: number } | undefined {
    if (!stability.deprecatedVersion) return undefined;
    const since = parseVersion(stability.deprecatedVersion);
    if (!since) throw new Error(`metric deprecated in ${JSON.stringify(stability.deprecatedVersion)}: not a version`);
    const current = this.version;
    return since.major < current.major || (since.major === current.major && since.minor <= current.minor) ? since : undefined;
  }

  /** Hidden: deprecated three or more minor releases ago, and hidden metrics not asked for. */
  isHidden(stability: MetricStability): boolean {
    const since = this.deprecated(stability);
    if (!since || this.showHidden) return false;
    return since.major < this.version.major || since.minor <= this.version.minor - SHOWN_AFTER_DEPRECATION;
  }

  /** The HELP text as upstream prints it: the class first, then the deprecation. */
  help(help: string, stability: MetricStability): string {
    const deprecated = this.deprecated(stability);
    const text = deprecated ? `(Deprecated since ${stability.deprecatedVersion}) ${help}` : help;
    return `[${stability.stabilityLevel}] ${text}`;
  }

  /** Declares one metric: its HELP, and the registry unless it is hidden. */
  declare(help: string, stability: MetricStability): DeclaredMetric {
    const hidden = this.isHidden(stability);
    if (hidden) this.hiddenTotal.inc();
    else this.registered.inc({ stability_level: stability.stabilityLevel, deprecated_version: this.deprecated(stability) ? stability.deprecatedVersion! : '' });
    return { help: this.help(help, stability), registers: hidden ? [] : [this.registry] };
  }
}

/**
 * The process's metrics (prom-client's defaults) in `registry`, less the three gauges named like
 * counters (nodejs_active_handles_total, ...), which fail `promtool check metrics`: their
 * *_total-less twins (nodejs_active_handles, ...) carry the same numbers.
 */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
}
