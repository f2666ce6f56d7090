// The non-resource endpoints every server has: /healthz, /livez and /readyz with each check under
// them, /version, /metrics and /metrics/slis.
import type { Logger } from 'pino';
import { healthHandler, pingCheck, singleCheckHandler, storageCheck, type HealthCheck, type ShutdownCheck } from '@plat/filters';
import type { ServerMetrics } from '@plat/metrics';
import type { PathMux } from '@plat/filters';
import type { Storage } from '@plat/storage';
import { versionHandler, versionInfo } from '@plat/endpoints';
import type { ServerOptions } from './options.js';

export function serveHealthEndpoints(
  mux: PathMux,
  storage: Storage,
  readiness: { shutdown: ShutdownCheck; api: readonly HealthCheck[] },
  options: Pick<ServerOptions, 'storageHealthTimeoutMs' | 'build'>,
  metrics: ServerMetrics,
  logger: Logger,
): void {
  const etcd = storageCheck(storage, options.storageHealthTimeoutMs ?? 2000);
  // /livez leaves storage out: restarting a replica does not bring etcd back.
  const endpoints: Record<string, HealthCheck[]> = {
    healthz: [pingCheck, etcd],
    livez: [pingCheck],
    readyz: [pingCheck, etcd, readiness.shutdown, ...readiness.api],
  };
  for (const [endpoint, checks] of Object.entries(endpoints)) {
    mux.handle(`/${endpoint}`, healthHandler(endpoint, checks, logger, metrics.health));
    for (const check of checks) mux.handle(`/${endpoint}/${check.name}`, singleCheckHandler(check, logger));
  }
  mux.handle('/version', versionHandler(versionInfo(options.build)));
  mux.handle('/metrics', metrics.handler());
  mux.handle('/metrics/slis', metrics.handler(metrics.health.registry));
}
