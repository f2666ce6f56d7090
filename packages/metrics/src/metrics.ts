// Prometheus metrics of one server: its own registry (two servers in one process do not clash),
// process metrics, and the request metrics under upstream's names, labels and stability classes
// (1.28's; our own plat_* metrics are ALPHA), declared through @plat/serving's MetricsStability.
import { Counter, Gauge, Registry } from 'prom-client';
import { HealthCheckMetrics, MetricsStability, collectProcessMetrics, type DeclaredMetric, type MetricsStabilityOptions, type StabilityLevel } from '@plat/serving';
import { CheapCounter, CheapHistogram } from './cheap-metrics.js';
import type { ParameterizedContext } from 'koa';

const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
type RequestLabel = (typeof requestLabels)[number];
const terminationLabels = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'] as const;
type TerminationLabel = (typeof terminationLabels)[number];

// Upstream's buckets for apiserver_request_duration_seconds.
const durationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export class ServerMetrics {
  readonly registry = new Registry();
  /** Every metric of this server is declared through it: its class in HELP, hidden once long deprecated. */
  readonly stability: MetricsStability;
  // Every request is counted and timed, every storage call timed: see cheap-metrics.ts.
  private readonly requests: CheapCounter<RequestLabel | 'code'>;
  private readonly duration: CheapHistogram<RequestLabel>;
  /** Watches open now, by the group, version and kind they watch (upstream's name and labels). */
  readonly registeredWatchers: Gauge<'group' | 'version' | 'kind'>;
  /** Requests in flight now that hold a slot of the in-flight limits, by readOnly or mutating. */
  readonly inflight: Gauge<'request_kind'>;
  /** The counts behind `inflight`, kept by the in-flight filter. */
  readonly inflightNow = { readOnly: 0, mutating: 0 };
  /** Long-running requests (watches) open now. */
  readonly longRunning: Gauge;
  /** Requests the in-flight limits refused with 429, by readOnly or mutating (upstream's max-in-flight filter counts them so). */
  readonly droppedRequests: Counter<'request_kind'>;
  /** Requests the per-user rate limits refused with 429. */
  readonly userRateRejected: Counter;
  /** Lists the memory budget refused with 429, by <resource>.<group>. */
  readonly listMemoryRejected: Counter<'resource'>;
  /** Requests ended in self-defense (a limit's 429, the timeout's 504), by request and code. */
  private readonly terminations: Counter<TerminationLabel>;
  /** 1 while per-user rates are shared through Redis, 0 while this replica decides alone. */
  readonly rateLimitRedisAvailable: Gauge;
  /** Per-user rate decisions made locally because Redis was unreachable. */
  readonly rateLimitFallbacks: Counter;
  /** Watchers closed for falling too far behind, by <resource>.<group> (upstream's watch cache counts its own). */
  readonly terminatedWatchers: Counter<'resource'>;
  /** Watch events sent, and their sizes in bytes, by the group, version and kind watched. */
  readonly watchEvents: CheapCounter<'group' | 'version' | 'kind'>;
  readonly watchEventSizes: CheapHistogram<'group' | 'version' | 'kind'>;
  /** Stored objects per resource (<resource>.<group>), counted periodically. */
  readonly storageObjects: Gauge<'resource'>;
  /** Storage calls' latency, by operation and the object type (<resource>.<group>). */
  readonly storageDuration: CheapHistogram<'operation' | 'type'>;
  /** The health checks' results (kubernetes_healthcheck, kubernetes_healthchecks_total), served at /metrics/slis. */
  readonly health: HealthCheckMetrics;
  /** 1 for each deprecated API requested since the server started. */
  readonly requestedDeprecatedApis: Gauge<'group' | 'version' | 'resource' | 'subresource' | 'removed_release'>;

  constructor(options: MetricsStabilityOptions = {}) {
    this.stability = new MetricsStability(this.registry, options);
    this.health = new HealthCheckMetrics(this.stability);
    const declare = (help: string, stabilityLevel: StabilityLevel): DeclaredMetric => this.stability.declare(help, { stabilityLevel });
    collectProcessMetrics(this.registry);
    const requestTotal = declare(
      'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      'STABLE',
    );
    this.requests = new CheapCounter('apiserver_request_total', requestTotal.help, [...requestLabels, 'code'], requestTotal.registers);
    const requestDuration = declare(
      'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      'STABLE',
    );
    this.duration = new CheapHistogram('apiserver_request_duration_seconds', requestDuration.help, requestLabels, durationBuckets, requestDuration.registers);
    this.registeredWatchers = new Gauge({
      name: 'apiserver_registered_watchers',
      ...declare('Number of currently registered watchers for a given resources', 'ALPHA'),
      labelNames: ['group', 'version', 'kind'],
    });
    const inflightNow = this.inflightNow;
    this.inflight = new Gauge({
      name: 'apiserver_current_inflight_requests',
      ...declare('Number of requests currently in flight on this apiserver per request kind (readOnly, mutating); watches are not counted.', 'STABLE'),
      labelNames: ['request_kind'],
      // Read at scrape time: setting a labelled gauge twice per request hashed its labels each time.
      collect() {
        for (const kind of ['readOnly', 'mutating'] as const) this.set({ request_kind: kind }, inflightNow[kind]);
      },
    });
    this.longRunning = new Gauge({
      name: 'apiserver_longrunning_requests',
      ...declare('Gauge of all active long-running apiserver requests.', 'STABLE'),
    });
    // What refuses a request with 429 is counted under its own name; none is API Priority and
    // Fairness, whose apiserver_flowcontrol_* names are left to it.
    this.droppedRequests = new Counter({
      name: 'apiserver_dropped_requests_total',
      ...declare("Number of requests dropped with 'Try again later' response", 'ALPHA'),
      labelNames: ['request_kind'],
    });
    this.userRateRejected = new Counter({
      name: 'plat_ratelimit_rejected_requests_total',
      ...declare('Requests refused with 429 by the per-user rate limits.', 'ALPHA'),
    });
    this.listMemoryRejected = new Counter({
      name: 'plat_list_memory_rejected_requests_total',
      ...declare('Lists refused with 429 because what they would hold does not fit in the memory lists and watchers may hold, by resource.', 'ALPHA'),
      labelNames: ['resource'],
    });
    this.terminations = new Counter({
      name: 'apiserver_request_terminations_total',
      ...declare('Number of requests which apiserver terminated in self-defense.', 'ALPHA'),
      labelNames: terminationLabels,
    });
    this.rateLimitRedisAvailable = new Gauge({
      name: 'plat_ratelimit_redis_available',
      ...declare('1 while per-user rate limits are shared by all replicas through Redis, 0 while this replica falls back to its local limits.', 'ALPHA'),
    });
    this.rateLimitFallbacks = new Counter({
      name: 'plat_ratelimit_local_fallback_total',
      ...declare('Per-user rate-limit decisions made by this replica alone because Redis was unreachable.', 'ALPHA'),
    });
    this.terminatedWatchers = new Counter({
      name: 'apiserver_terminated_watchers_total',
      ...declare('Counter of watchers closed due to unresponsiveness broken by resource type.', 'ALPHA'),
      labelNames: ['resource'],
    });
    // Counted once per run per watcher, observed once per event per watcher: see cheap-metrics.ts.
    const watchEvents = declare('Number of events sent in watch clients', 'ALPHA');
    this.watchEvents = new CheapCounter('apiserver_watch_events_total', watchEvents.help, ['group', 'version', 'kind'], watchEvents.registers);
    const watchEventSizes = declare('Watch event size distribution in bytes', 'ALPHA');
    this.watchEventSizes = new CheapHistogram(
      'apiserver_watch_events_sizes',
      watchEventSizes.help,
      ['group', 'version', 'kind'],
      [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
      watchEventSizes.registers,
    );
    this.storageObjects = new Gauge({
      name: 'apiserver_storage_objects',
      ...declare('Number of stored objects at the time of last check split by kind.', 'STABLE'),
      labelNames: ['resource'],
    });
    const storageDuration = declare('Etcd request latency in seconds for each operation and object type.', 'ALPHA');
    this.storageDuration = new CheapHistogram(
      'etcd_request_duration_seconds',
      storageDuration.help,
      ['operation', 'type'],
      [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      storageDuration.registers,
    );
    this.requestedDeprecatedApis = new Gauge({
      name: 'apiserver_requested_deprecated_apis',
      ...declare('Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.', 'STABLE'),
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
    });
  }

  observe(labels: Record<RequestLabel, string>, code: number, seconds: number): void {
    this.requests.labels({ ...labels, code: String(code) }).inc();
    this.duration.labels(labels).observe(seconds);
  }

  /** A request ended in self-defense: its labels (but dry_run), and the code it was answered. */
  terminated(labels: Record<RequestLabel, string>, code: number): void {
    const { dry_run: _dryRun, ...rest } = labels;
    this.terminations.inc({ ...rest, code: String(code) });
  }

  /** /metrics, or with `registry` another of its endpoints (/metrics/slis). */
  handler(registry: Registry = this.registry): (ctx: ParameterizedContext) => Promise<void> {
    return async (ctx) => {
      ctx.body = await registry.metrics();
      ctx.set('Content-Type', registry.contentType);
    };
  }
}

