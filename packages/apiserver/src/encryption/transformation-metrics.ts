// apiserver_storage_transformation_duration_seconds and _operations_total, as upstream's
// storage/value metrics (ALPHA in 1.28): by transformation type and transformer prefix, the status
// OK or, for a failure that is not a KMS plugin's gRPC error (none here are), "unknown-non-grpc".
// The observer exists before the server (storage is made first); its metrics are declared, with
// their stability, when the server registers it, before storage is first used.
import { Counter, Histogram } from 'prom-client';
import type { MetricsStability } from '@plat/serving';
import type { TransformationObserver } from '@plat/storage';

/** Upstream's buckets: 5 µs doubling 25 times. */
const buckets = Array.from({ length: 25 }, (_, i) => 5e-6 * 2 ** i);

export class TransformationMetrics implements TransformationObserver {
  private duration?: Histogram<'transformation_type' | 'transformer_prefix'>;
  private operations?: Counter<'transformation_type' | 'transformer_prefix' | 'status'>;

  /** Declares the metrics where `stability` puts them (the server's registry). */
  register(stability: MetricsStability): void {
    const alpha = (help: string) => stability.declare(help, { stabilityLevel: 'ALPHA' });
    this.duration = new Histogram({
      name: 'apiserver_storage_transformation_duration_seconds',
      ...alpha('Latencies in seconds of value transformation operations.'),
      labelNames: ['transformation_type', 'transformer_prefix'],
      buckets,
    });
    this.operations = new Counter({
      name: 'apiserver_storage_transformation_operations_total',
      ...alpha('Total number of transformations.'),
      labelNames: ['transformation_type', 'transformer_prefix', 'status'],
    });
  }

  observe(type: 'from_storage' | 'to_storage', prefix: string, seconds: number, error: unknown): void {
    this.operations?.inc({ transformation_type: type, transformer_prefix: prefix, status: error ? 'unknown-non-grpc' : 'OK' });
    // As upstream: only successful transformations are timed.
    if (!error) this.duration?.observe({ transformation_type: type, transformer_prefix: prefix }, seconds);
  }
}
