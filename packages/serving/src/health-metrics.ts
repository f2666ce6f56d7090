// The health checks' results as metrics, as component-base's health metrics (BETA in 1.28):
// kubernetes_healthcheck (1 when a check last passed, 0 when it failed) and
// kubernetes_healthchecks_total, by check name and endpoint type (healthz, livez, readyz), recorded
// whenever an endpoint runs its checks (the probes do, every few seconds). They live on a
// registry of their own, which components serve at /metrics/slis as upstream's do.
import { Counter, Gauge, Registry } from 'prom-client';
import type { HealthReport } from './health.js';
import type { MetricsStability } from './metrics-stability.js';

export class HealthCheckMetrics {
  /** /metrics/slis. */
  readonly registry = new Registry();
  private readonly latest: Gauge<'name' | 'type'>;
  private readonly total: Counter<'name' | 'type' | 'status'>;

  constructor(stability: MetricsStability) {
    const declare = (help: string) => {
      const declared = stability.declare(help, { stabilityLevel: 'BETA' });
      return { help: declared.help, registers: declared.registers.length ? [this.registry] : [] };
    };
    this.latest = new Gauge({ name: 'kubernetes_healthcheck', ...declare('This metric records the result of a single healthcheck.'), labelNames: ['name', 'type'] });
    this.total = new Counter({ name: 'kubernetes_healthchecks_total', ...declare('This metric records the results of all healthcheck.'), labelNames: ['name', 'type', 'status'] });
  }

  /** What one run of an endpoint's checks found. */
  observe(type: string, report: HealthReport): void {
    for (const { check, healthy } of report.results) {
      this.latest.set({ name: check, type }, healthy ? 1 : 0);
      this.total.inc({ name: check, type, status: healthy ? 'success' : 'error' });
    }
  }
}
