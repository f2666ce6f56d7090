// The apiserver's health checks and the koa handlers of /healthz, /livez, /readyz in kube-apiserver's
// format (the checks' evaluation and the format are @plat/serving's, shared with other components).
import { runHealthCheck, runHealthChecks, type HealthCheck, type HealthCheckMetrics, type HealthReport } from '@plat/serving';
import type { Storage } from '@plat/storage';
import type { Logger } from 'pino';
import type { Handler, RequestContext } from './context.js';

export { pingCheck, type HealthCheck } from '@plat/serving';

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  // The slow call may still fail after we stopped waiting; that is not an unhandled rejection.
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The storage check, named `etcd` as upstream names it whatever the backend. */
export function storageCheck(storage: Storage, timeoutMs: number): HealthCheck {
  return {
    name: 'etcd',
    check: () => withTimeout(storage.checkHealth(), timeoutMs, `storage did not answer within ${timeoutMs / 1000}s`),
  };
}

/** Fails once graceful shutdown has begun, so that load balancers stop sending new requests. */
export class ShutdownCheck implements HealthCheck {
  readonly name = 'shutdown';
  private begun = false;

  begin(): void {
    this.begun = true;
  }

  async check(): Promise<void> {
    if (this.begun) throw new Error('process is shutting down');
  }
}

function writeReport(ctx: RequestContext, report: HealthReport): void {
  ctx.status = report.status;
  ctx.body = report.body;
  ctx.set('Content-Type', 'text/plain; charset=utf-8');
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/** The handler of `/<endpoint>` running every check, honouring ?verbose and ?exclude=<check>; each result is a metric. */
export function healthHandler(endpoint: string, checks: readonly HealthCheck[], logger: Logger, metrics: HealthCheckMetrics): Handler {
  return async (ctx) => {
    const report = await runHealthChecks(endpoint, checks, new URLSearchParams(ctx.querystring));
    metrics.observe(endpoint, report);
    for (const { check, reason } of report.failures) logger.warn({ endpoint, check, reason }, `${endpoint} check failed`);
    writeReport(ctx, report);
  };
}

/** The handler of `/<endpoint>/<check>`: just that check, its reason in the body when it fails. */
export function singleCheckHandler(check: HealthCheck, logger: Logger): Handler {
  return async (ctx) => {
    const report = await runHealthCheck(check);
    for (const { reason } of report.failures) logger.warn({ check: check.name, reason }, 'health check failed');
    writeReport(ctx, report);
  };
}
