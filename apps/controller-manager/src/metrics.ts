// The controller-manager's metrics, in its own prom-client registry: upstream's leader election
// gauge, client-go's work queue metrics (fed through @plat/client's WorkQueueMetrics, so that the
// client depends on no metrics library), and the process's default metrics.
import type { WorkQueueMetrics, WorkQueueMetricsProvider } from '@plat/client';
import { MetricsStability, collectProcessMetrics, type MetricsStabilityOptions } from '@plat/serving';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// client-go's workqueue buckets (component-base): ExponentialBuckets(10e-9, 10, 10), 10 ns to 10 s.
const QUEUE_BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

export class ControllerManagerMetrics {
  readonly registry = new Registry();
  private readonly leader: Gauge<'name'>;
  private readonly depth: Gauge<'name'>;
  private readonly adds: Counter<'name'>;
  private readonly retries: Counter<'name'>;
  private readonly queueDuration: Histogram<'name'>;
  private readonly workDuration: Histogram<'name'>;

  constructor(options: MetricsStabilityOptions = {}) {
    collectProcessMetrics(this.registry);
    // Upstream's classes: all of these are ALPHA in 1.28.
    const stability = new MetricsStability(this.registry, options);
    const alpha = (help: string) => stability.declare(help, { stabilityLevel: 'ALPHA' });
    this.leader = new Gauge({
      name: 'leader_election_master_status',
      ...alpha("Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name."),
      labelNames: ['name'],
    });
    this.depth = new Gauge({ name: 'workqueue_depth', ...alpha('Current depth of workqueue'), labelNames: ['name'] });
    this.adds = new Counter({ name: 'workqueue_adds_total', ...alpha('Total number of adds handled by workqueue'), labelNames: ['name'] });
    this.retries = new Counter({ name: 'workqueue_retries_total', ...alpha('Total number of retries handled by workqueue'), labelNames: ['name'] });
    this.queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      ...alpha('How long in seconds an item stays in workqueue before being requested.'),
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      ...alpha('How long in seconds processing an item from workqueue takes.'),
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
    });
  }

  /** leader_election_master_status{name=<lease>}: 1 while this process leads, 0 while it stands by. */
  setLeading(lease: string, leading: boolean): void {
    this.leader.set({ name: lease }, leading ? 1 : 0);
  }

  /** The work queues' metrics, labelled with each queue's name. */
  readonly queueMetrics: WorkQueueMetricsProvider = (name): WorkQueueMetrics => {
    const labels = { name };
    // Present from the queue's creation on, at zero, as client-go's are.
    this.depth.set(labels, 0);
    this.adds.inc(labels, 0);
    this.retries.inc(labels, 0);
    return {
      add: () => {
        this.adds.inc(labels);
        this.depth.inc(labels);
      },
      get: (waitedMs) => {
        this.depth.dec(labels);
        this.queueDuration.observe(labels, waitedMs / 1000);
      },
      done: (workedMs) => this.workDuration.observe(labels, workedMs / 1000),
      retry: () => this.retries.inc(labels),
    };
  };
}
