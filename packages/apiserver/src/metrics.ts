// Prometheus metrics of one server: its own registry (two servers in one process do not clash),
// process metrics, and the request metrics under upstream's names and labels.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Handler, Middleware, RequestState } from './context.js';
import type { RequestInfo } from './request-info.js';

const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
type RequestLabel = (typeof requestLabels)[number];

// Upstream's buckets for apiserver_request_duration_seconds.
const durationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<RequestLabel | 'code'>;
  private readonly duration: Histogram<RequestLabel>;
  /** Watches open now, by the group, version and kind they watch (upstream's name and labels). */
  readonly registeredWatchers: Gauge<'group' | 'version' | 'kind'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...requestLabels, 'code'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: requestLabels,
      buckets: durationBuckets,
      registers: [this.registry],
    });
    this.registeredWatchers = new Gauge({
      name: 'apiserver_registered_watchers',
      help: 'Number of currently registered watchers for a given resources',
      labelNames: ['group', 'version', 'kind'],
      registers: [this.registry],
    });
  }

  observe(labels: Record<RequestLabel, string>, code: number, seconds: number): void {
    this.requests.inc({ ...labels, code: String(code) });
    this.duration.observe(labels, seconds);
  }

  handler(): Handler {
    return async (ctx) => {
      ctx.body = await this.registry.metrics();
      ctx.set('Content-Type', this.registry.contentType);
    };
  }
}

/** Upstream's reported verb: the HTTP method, but LIST, WATCH and APPLY where those apply. */
function reportedVerb(method: string, info: RequestInfo | undefined, contentType: string): string {
  if (info?.isResourceRequest) {
    if (info.verb === 'list') return 'LIST';
    if (info.verb === 'watch') return 'WATCH';
    if (info.verb === 'deletecollection') return 'DELETECOLLECTION';
    if (method === 'PATCH' && contentType.startsWith('application/apply-patch+yaml')) return 'APPLY';
  }
  return method.toUpperCase();
}

function scope(info: RequestInfo | undefined): string {
  if (!info?.isResourceRequest) return '';
  if (info.namespace) return 'namespace';
  if (info.name) return 'resource';
  return 'cluster';
}

/** Upstream's dry_run label: the sorted distinct values, or "invalid" (only "All" is valid). */
function dryRunLabel(querystring: string): string {
  const values = new URLSearchParams(querystring).getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].join(',');
}

/**
 * Records every request when its response closes, so streams count with their whole duration.
 * Group, version and resource labels are taken from the URL only for resources the server knows:
 * any client can send any path, and label values must stay a bounded set.
 */
export function metricsFilter(metrics: ServerMetrics, isKnownResource: (info: RequestInfo) => boolean): Middleware {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    ctx.res.once('close', () => {
      const info = (ctx.state as Partial<RequestState>).requestInfo;
      const known = info?.isResourceRequest && isKnownResource(info) ? info : undefined;
      const labels = {
        verb: reportedVerb(ctx.method, info, ctx.get('Content-Type')),
        dry_run: dryRunLabel(ctx.querystring),
        group: known?.apiGroup ?? '',
        version: known?.apiVersion ?? '',
        resource: known?.resource ?? '',
        subresource: known?.subresource ?? '',
        scope: scope(info),
        component: 'apiserver',
      };
      metrics.observe(labels, ctx.status, Number(process.hrtime.bigint() - start) / 1e9);
    });
    await next();
  };
}
