// The controller-manager's secure port (kube-controller-manager's --secure-port, 10257): /healthz,
// /livez and /readyz in kube-apiserver's format (and /<endpoint>/<check>), and /metrics in
// Prometheus' text format, over HTTPS with a certificate from @plat/serving. There is no
// authentication or authorization yet (upstream delegates both to the API server): whoever can
// reach the port can read these, which is why it binds to loopback by default.
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { InformerFactory, LeaderElector, Logger } from '@plat/client';
import { runHealthCheck, secureServingOptions, runHealthChecks, type HealthCheck, type HealthReport, type TlsPolicy } from '@plat/serving';
import type { Registry } from 'prom-client';

const healthEndpoints = ['healthz', 'livez', 'readyz'] as const;
export type HealthEndpoint = (typeof healthEndpoints)[number];

/**
 * How long past the longest a working renew loop goes without renewing (retry period + renew
 * deadline) the leaderElection check still passes: slack for a slow request or a busy event loop.
 */
const LEADER_ELECTION_TOLERANCE_MS = 2_000;

/** Upstream's "leaderElection" check: fails while this process believes it leads but does not renew. */
export function leaderElectionCheck(elector: Pick<LeaderElector, 'check'>, toleranceMs = LEADER_ELECTION_TOLERANCE_MS): HealthCheck {
  return {
    name: 'leaderElection',
    check: async () => {
      const problem = elector.check(toleranceMs);
      if (problem) throw problem;
    },
  };
}

/**
 * Readiness of the controllers ("informer-sync"): ready while they are not running (a standby
 * waiting for the lease), and while they run once every informer they asked for has synced. The
 * garbage collector asks for informers as discovery finds resources, so readiness is judged afresh
 * at every probe.
 */
export class InformerSyncCheck implements HealthCheck {
  readonly name = 'informer-sync';
  private informers?: Pick<InformerFactory, 'hasSynced'>;

  /** The controllers started on these informers; undefined: they stopped. */
  set(informers: Pick<InformerFactory, 'hasSynced'> | undefined): void {
    this.informers = informers;
  }

  async check(): Promise<void> {
    if (this.informers && !this.informers.hasSynced()) throw new Error("the controllers' informers have not synced yet");
  }
}

export interface SecureServingOptions {
  bindAddress: string;
  /** 0 picks a free port (for tests; the flag's 0 means no server at all). */
  port: number;
  tls: { cert: string; key: string };
  /** --tls-min-version and --tls-cipher-suites; default TLS 1.2 and node's suites. */
  tlsPolicy?: TlsPolicy;
  checks: Record<HealthEndpoint, readonly HealthCheck[]>;
  registry: Registry;
  logger: Logger;
}

export interface SecureServing {
  readonly port: number;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

type Answer = { status: number; contentType: string; body: string };

const text = (status: number, body: string): Answer => ({ status, contentType: 'text/plain; charset=utf-8', body });

export async function startSecureServing(options: SecureServingOptions): Promise<SecureServing> {
  const { checks, registry, logger } = options;
  const report = (endpoint: string, result: HealthReport): Answer => {
    for (const { check, reason } of result.failures) logger.warn({ endpoint, check, reason }, `${endpoint} check failed`);
    return text(result.status, result.body);
  };
  const answer = async (url: URL): Promise<Answer> => {
    if (url.pathname === '/metrics') return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
    const [, endpoint, check, ...rest] = url.pathname.split('/');
    if (!(healthEndpoints as readonly (string | undefined)[]).includes(endpoint) || rest.length) return text(404, '404 page not found\n');
    const endpointChecks = checks[endpoint as HealthEndpoint];
    if (check === undefined) return report(endpoint!, await runHealthChecks(endpoint!, endpointChecks, url.searchParams));
    const named = endpointChecks.find((c) => c.name === check);
    return named ? report(endpoint!, await runHealthCheck(named)) : text(404, '404 page not found\n');
  };

  const server: Server = createServer(secureServingOptions(options.tls, options.tlsPolicy), (req, res) => {
    answer(new URL(req.url ?? '/', 'https://localhost'))
      .catch((err: unknown): Answer => {
        logger.error({ err, path: req.url }, 'serving failed');
        return text(500, 'internal server error\n');
      })
      .then(({ status, contentType, body }) => {
        res.writeHead(status, { 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff' });
        res.end(req.method === 'HEAD' ? undefined : body);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: async () => {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
