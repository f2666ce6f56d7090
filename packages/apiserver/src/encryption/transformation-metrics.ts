// apiserver_storage_transformation_duration_seconds and _operations_total, as upstream's
// storage/value metrics: by transformation type and transformer prefix, the status OK or, for a
// failure that is not a KMS plugin's gRPC error (none here are), "unknown-non-grpc".
import { Counter, Histogram, type Registry } from 'prom-client';
import type { TransformationObserver } from '@plat/storage';

/** Upstream's buckets: 5 µs doubling 25 times. */
const buckets = Array.from({ length: 25 }, (_, i) => 5e-6 * 2 ** i);

export class TransformationMetrics implements TransformationObserver {
  private readonly duration = new Histogram({
    name: 'apiserver_storage_transformation_duration_seconds',
    help: 'Latencies in seconds of value transformation operations.',
    labelNames: ['transformation_type', 'transformer_prefix'],
    buckets,
    registers: [],
  });
  private readonly operations = new Counter({
    name: 'apiserver_storage_transformation_operations_total',
    help: 'Total number of transformations.',
    labelNames: ['transformation_type', 'transformer_prefix', 'status'],
    registers: [],
  });

  /** Serves the metrics from `registry` (the server's, made after storage is). */
  register(registry: Registry): void {
    registry.registerMetric(this.duration);
    registry.registerMetric(this.operations);
  }

  observe(type: 'from_storage' | 'to_storage', prefix: string, seconds: number, error: unknown): void {
    this.operations.inc({ transformation_type: type, transformer_prefix: prefix, status: error ? 'unknown-non-grpc' : 'OK' });
    // As upstream: only successful transformations are timed.
    if (!error) this.duration.observe({ transformation_type: type, transformer_prefix: prefix }, seconds);
  }
}
