// apiserver_storage_transformation_duration_seconds and _operations_total, as upstream's
// storage/value metrics (ALPHA in 1.28): by transformation type and transformer prefix, the status
// OK or, for a failure that is not a KMS plugin's gRPC error (none here are), "unknown-non-grpc".
// The observer exists before the server (storage is made first); its metrics are declared, with
// their stability, when the server registers it, before storage is first used.
import type { MetricsStability } from '@plat/serving';
import type { TransformationObserver } from '@plat/storage';
import { CheapCounter, CheapHistogram, type CounterSeries, type HistogramSeries } from '@plat/metrics';

/** Upstream's buckets: 5 µs doubling 25 times. */
const buckets = Array.from({ length: 25 }, (_, i) => 5e-6 * 2 ** i);

type Labels = 'transformation_type' | 'transformer_prefix';

// Every encrypted value written or read is observed: the series are resolved once per type, prefix
// and outcome (@plat/metrics' cheap-metrics.ts), not hashed by prom-client on each call (a few percent of a
// replica writing Secrets through aesgcm).
export class TransformationMetrics implements TransformationObserver {
  private duration?: CheapHistogram<Labels>;
  private operations?: CheapCounter<Labels | 'status'>;
  private readonly series = new Map<string, { count: CounterSeries; time?: HistogramSeries }>();

  /** Declares the metrics where `stability` puts them (the server's registry). */
  register(stability: MetricsStability): void {
    const duration = stability.declare('Latencies in seconds of value transformation operations.', { stabilityLevel: 'ALPHA' });
    const operations = stability.declare('Total number of transformations.', { stabilityLevel: 'ALPHA' });
    this.duration = new CheapHistogram('apiserver_storage_transformation_duration_seconds', duration.help, ['transformation_type', 'transformer_prefix'], buckets, duration.registers);
    this.operations = new CheapCounter('apiserver_storage_transformation_operations_total', operations.help, ['transformation_type', 'transformer_prefix', 'status'], operations.registers);
    this.series.clear();
  }

  observe(type: 'from_storage' | 'to_storage', prefix: string, seconds: number, error: unknown): void {
    if (!this.operations || !this.duration) return;
    const key = `${type}\u0000${prefix}\u0000${error ? 'e' : ''}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { transformation_type: type, transformer_prefix: prefix };
      series = {
        count: this.operations.labels({ ...labels, status: error ? 'unknown-non-grpc' : 'OK' }),
        // As upstream: only successful transformations are timed.
        ...(!error && { time: this.duration.labels(labels) }),
      };
      this.series.set(key, series);
    }
    series.count.inc();
    series.time?.observe(seconds);
  }
}
