// Request metrics (apiserver_request_total, apiserver_request_duration_seconds), recorded when the
// response closes, so that streams count with their whole duration.
import type { Middleware, RequestState } from '../context.js';
import type { ServerMetrics } from '@plat/metrics';
import type { RequestInfo } from '../request-info.js';

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
      if ((ctx.state as Partial<RequestState>).terminated) metrics.terminated(labels, ctx.status);
    });
    await next();
  };
}
