// Prometheus metrics of one server: its own registry (two servers in one process do not clash),
// process metrics, and the request metrics under upstream's names and labels.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { CheapCounter, CheapHistogram } from './cheap-metrics.js';
import type { Handler } from './context.js';

const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
type RequestLabel = (typeof requestLabels)[number];

// Upstream's buckets for apiserver_request_duration_seconds.
const durationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export class ServerMetrics {
  readonly registry = new Registry();
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
  /** Requests refused with 429, by which limit refused them. */
  readonly rejected: Counter<'priority_level' | 'flow_schema' | 'reason'>;
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
  /** 1 for each deprecated API requested since the server started. */
  readonly requestedDeprecatedApis: Gauge<'group' | 'version' | 'resource' | 'subresource' | 'removed_release'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters fail `promtool check metrics`; their *_total-less twins
    // (nodejs_active_handles, ...) carry the same numbers.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    this.requests = new CheapCounter(
      'apiserver_request_total',
      'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      [...requestLabels, 'code'],
      [this.registry],
    );
    this.duration = new CheapHistogram(
      'apiserver_request_duration_seconds',
      'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      requestLabels,
      durationBuckets,
      [this.registry],
    );
    this.registeredWatchers = new Gauge({
      name: 'apiserver_registered_watchers',
      help: 'Number of currently registered watchers for a given resources',
      labelNames: ['group', 'version', 'kind'],
      registers: [this.registry],
    });
    const registers = [this.registry];
    const inflightNow = this.inflightNow;
    this.inflight = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Number of requests currently in flight on this apiserver per request kind (readOnly, mutating); watches are not counted.',
      labelNames: ['request_kind'],
      registers,
      // Read at scrape time: setting a labelled gauge twice per request hashed its labels each time.
      collect() {
        for (const kind of ['readOnly', 'mutating'] as const) this.set({ request_kind: kind }, inflightNow[kind]);
      },
    });
    this.longRunning = new Gauge({ name: 'apiserver_longrunning_requests', help: 'Gauge of all active long-running apiserver requests.', registers });
    this.rejected = new Counter({
      name: 'apiserver_flowcontrol_rejected_requests_total',
      help: 'Number of requests rejected by the in-flight limits or the per-user rate limits.',
      labelNames: ['priority_level', 'flow_schema', 'reason'],
      registers,
    });
    this.rateLimitRedisAvailable = new Gauge({
      name: 'plat_ratelimit_redis_available',
      help: '1 while per-user rate limits are shared by all replicas through Redis, 0 while this replica falls back to its local limits.',
      registers,
    });
    this.rateLimitFallbacks = new Counter({
      name: 'plat_ratelimit_local_fallback_total',
      help: 'Per-user rate-limit decisions made by this replica alone because Redis was unreachable.',
      registers,
    });
    this.terminatedWatchers = new Counter({
      name: 'apiserver_terminated_watchers_total',
      help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
      labelNames: ['resource'],
      registers,
    });
    // Counted once per run per watcher, observed once per event per watcher: see cheap-metrics.ts.
    this.watchEvents = new CheapCounter('apiserver_watch_events_total', 'Number of events sent in watch clients', ['group', 'version', 'kind'], registers);
    this.watchEventSizes = new CheapHistogram(
      'apiserver_watch_events_sizes',
      'Watch event size distribution in bytes',
      ['group', 'version', 'kind'],
      [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072],
      registers,
    );
    this.storageObjects = new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind.',
      labelNames: ['resource'],
      registers,
    });
    this.storageDuration = new CheapHistogram(
      'etcd_request_duration_seconds',
      'Etcd request latency in seconds for each operation and object type.',
      ['operation', 'type'],
      [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      registers,
    );
    this.requestedDeprecatedApis = new Gauge({
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
      registers,
    });
  }

  observe(labels: Record<RequestLabel, string>, code: number, seconds: number): void {
    this.requests.labels({ ...labels, code: String(code) }).inc();
    this.duration.labels(labels).observe(seconds);
  }

  handler(): Handler {
    return async (ctx) => {
      ctx.body = await this.registry.metrics();
      ctx.set('Content-Type', this.registry.contentType);
    };
  }
}

