// API Priority and Fairness' metrics (upstream's apiserver_flowcontrol_*, 1.28's names, labels,
// help texts and stability): the BETA counts the filter makes as requests are dispatched, queued,
// executed and rejected, and the levels' seat limits, read from the flow controller at scrape time.
// Known by plain labels: this package knows nothing of flow control.
import { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsStability, StabilityLevel } from '@plat/serving';

/** A level's limits as the controller has them now. */
export interface FlowControlLevelLimits {
  priorityLevel: string;
  nominalCL: number;
  /** NominalCL - LendableCL */
  lowerCL: number;
  /** NominalCL + BorrowingCL */
  upperCL: number;
  currentCL: number;
}

/** Upstream's requestDurationSecondsBuckets for the wait histogram. */
const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const SUBSYSTEM = 'apiserver_flowcontrol_';

type FlowLabel = 'priority_level' | 'flow_schema';

export class FlowControlMetrics {
  private readonly rejectedRequests: Counter<FlowLabel | 'reason'>;
  private readonly dispatchedRequests: Counter<FlowLabel>;
  private readonly inQueueRequests: Gauge<FlowLabel>;
  private readonly executingRequests: Gauge<FlowLabel>;
  private readonly executingSeats: Gauge<FlowLabel>;
  private readonly waitDuration: Histogram<FlowLabel | 'execute'>;

  constructor(stability: MetricsStability, levels: () => readonly FlowControlLevelLimits[]) {
    const declare = (help: string, stabilityLevel: StabilityLevel, deprecatedVersion?: string) =>
      stability.declare(help, { stabilityLevel, ...(deprecatedVersion && { deprecatedVersion }) });
    const flow = ['priority_level', 'flow_schema'] as const;
    this.rejectedRequests = new Counter({ name: `${SUBSYSTEM}rejected_requests_total`, ...declare('Number of requests rejected by API Priority and Fairness subsystem', 'BETA'), labelNames: [...flow, 'reason'] });
    this.dispatchedRequests = new Counter({ name: `${SUBSYSTEM}dispatched_requests_total`, ...declare('Number of requests executed by API Priority and Fairness subsystem', 'BETA'), labelNames: flow });
    this.inQueueRequests = new Gauge({ name: `${SUBSYSTEM}current_inqueue_requests`, ...declare('Number of requests currently pending in queues of the API Priority and Fairness subsystem', 'BETA'), labelNames: flow });
    this.executingRequests = new Gauge({
      name: `${SUBSYSTEM}current_executing_requests`,
      ...declare('Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem', 'BETA'),
      labelNames: flow,
    });
    this.executingSeats = new Gauge({
      name: `${SUBSYSTEM}current_executing_seats`,
      ...declare('Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem', 'BETA'),
      labelNames: flow,
    });
    this.waitDuration = new Histogram({
      name: `${SUBSYSTEM}request_wait_duration_seconds`,
      ...declare('Length of time a request spent waiting in its queue', 'BETA'),
      labelNames: [...flow, 'execute'],
      buckets: WAIT_BUCKETS,
    });
    // The limits are read from the controller when scraped: they change with every borrowing adjustment.
    const perLevel = (name: string, help: string, level: StabilityLevel, value: (l: FlowControlLevelLimits) => number, deprecatedVersion?: string) =>
      new Gauge({
        name: `${SUBSYSTEM}${name}`,
        ...declare(help, level, deprecatedVersion),
        labelNames: ['priority_level'],
        collect() {
          this.reset();
          for (const l of levels()) this.set({ priority_level: l.priorityLevel }, value(l));
        },
      });
    perLevel('nominal_limit_seats', 'Nominal number of execution seats configured for each priority level', 'BETA', (l) => l.nominalCL);
    perLevel('request_concurrency_limit', 'Nominal number of execution seats configured for each priority level', 'ALPHA', (l) => l.nominalCL, '1.30.0');
    perLevel('lower_limit_seats', 'Configured lower bound on number of execution seats available to each priority level', 'ALPHA', (l) => l.lowerCL);
    perLevel('upper_limit_seats', 'Configured upper bound on number of execution seats available to each priority level', 'ALPHA', (l) => l.upperCL);
    perLevel('current_limit_seats', 'current derived number of execution seats available to each priority level', 'ALPHA', (l) => l.currentCL);
  }

  dispatched(priorityLevel: string, flowSchema: string, waitedSeconds: number): void {
    this.dispatchedRequests.inc({ priority_level: priorityLevel, flow_schema: flowSchema });
    this.waitDuration.observe({ priority_level: priorityLevel, flow_schema: flowSchema, execute: 'true' }, waitedSeconds);
  }

  rejected(priorityLevel: string, flowSchema: string, reason: string, waitedSeconds: number): void {
    this.rejectedRequests.inc({ priority_level: priorityLevel, flow_schema: flowSchema, reason });
    this.waitDuration.observe({ priority_level: priorityLevel, flow_schema: flowSchema, execute: 'false' }, waitedSeconds);
  }

  inQueue(priorityLevel: string, flowSchema: string, delta: number): void {
    this.inQueueRequests.inc({ priority_level: priorityLevel, flow_schema: flowSchema }, delta);
  }

  executing(priorityLevel: string, flowSchema: string, delta: number, seats: number): void {
    this.executingRequests.inc({ priority_level: priorityLevel, flow_schema: flowSchema }, delta);
    this.executingSeats.inc({ priority_level: priorityLevel, flow_schema: flowSchema }, delta * seats);
  }
}
