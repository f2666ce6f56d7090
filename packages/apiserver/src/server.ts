// The API server: serves its secure port (HTTP/2 and HTTP/1.1, @plat/filters' http-server.ts) and
// shuts down gracefully. What it serves is built by control-plane/, in dependency order: storage and
// the watch cache, the resource API (admission, the catalog, authorization, authentication,
// endpoints), the health endpoints, then the filter chain every request passes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookClientManager, defaultWebhookBackoff } from '@plat/webhook';
import { secureServingOptions } from '@plat/serving';
import { createApp } from '@plat/filters';
import { AuditFileLog, type AuditSink } from '@plat/audit';
import { defaultAuditPolicy } from '@plat/audit';
import { WebhookAuthorizer } from '@plat/authz';
import { newAuthorizer } from '@plat/authz';
import { MAX_HEADER_BYTES, handleConnectionErrors } from '@plat/filters';
import { serveApi } from './control-plane/api/index.js';
import { serverAuthentication } from './control-plane/authentication.js';
import { serveHealthEndpoints } from './control-plane/health-endpoints.js';
import type { Server, ServerOptions } from './control-plane/options.js';
import { shutDown } from './control-plane/shutdown.js';
import { servingStorage } from './control-plane/storage.js';
import { serverConcurrency, servePriorityAndFairness } from './priority-and-fairness/index.js';
import { ShutdownCheck } from '@plat/filters';
import { DEFAULT_HTTP2_MAX_STREAMS, createSecurePort } from '@plat/filters';
import { newUserRateLimiter } from '@plat/filters';
import { ServerMetrics } from '@plat/metrics';
import { PathMux } from '@plat/filters';
import type { RequestInfo } from '@plat/filters';
import { RequestTracker } from '@plat/filters';

export type { ApiOptions, Server, ServerOptions } from './control-plane/options.js';

export function createServer(options: ServerOptions): Server {
  const { logger } = options;
  const metrics = new ServerMetrics(options.showHiddenMetricsForVersion ? { showHiddenMetricsForVersion: options.showHiddenMetricsForVersion } : {});
  options.storageTransformationMetrics?.register(metrics.stability);
  const { storage, watchCache } = servingStorage(options, metrics, logger);
  const mux = new PathMux();
  const tracker = new RequestTracker();
  const shutdownCheck = new ShutdownCheck();
  const modes = options.authorizationModes ?? ['AlwaysAllow'];
  const domain = options.api?.domain ?? 'plat.io';
  // Every webhook's client comes from here (the authentication and authorization webhooks' today).
  const webhooks = new WebhookClientManager();
  const authorizationWebhook = options.authorizationWebhook;
  const webhookAuthorizer =
    authorizationWebhook &&
    new WebhookAuthorizer({
      client: webhooks.client({ kubeconfig: authorizationWebhook.connection }, { backoff: authorizationWebhook.backoff ?? defaultWebhookBackoff }),
      domain,
      version: authorizationWebhook.version,
      authorizedTtlMs: authorizationWebhook.authorizedTtlMs,
      unauthorizedTtlMs: authorizationWebhook.unauthorizedTtlMs,
    });
  if (options.serviceAccountTokens && !options.api) throw new Error('service-account tokens need the resource API');
  const served =
    options.api &&
    serveApi({
      api: options.api,
      security: { ...options, modes, ...(webhookAuthorizer && { webhook: webhookAuthorizer }) },
      storage,
      watchCache,
      mux,
      metrics,
      logger,
      webhooks,
      registerLongRunning: (res, end) => tracker.registerLongRunning(res, end),
    });
  serveHealthEndpoints(mux, storage, { shutdown: shutdownCheck, api: served?.checks ?? [] }, options, metrics, logger);

  // After the resource API (it reads the flowcontrol kinds and the object counts), before the chain.
  const apf =
    options.priorityAndFairness ?
    servePriorityAndFairness({
      serverConcurrencyLimit: serverConcurrency(options.limits?.maxRequestsInflight ?? 400, options.limits?.maxMutatingRequestsInflight ?? 200),
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      ...(typeof options.priorityAndFairness === 'object' && options.priorityAndFairness.producerReconcileMs && { producerReconcileMs: options.priorityAndFairness.producerReconcileMs }),
      ...(served && { catalog: served.catalog }),
      domain,
      objectCount: (groupResource) => served?.objectCount(groupResource),
      mux,
      metrics,
      logger,
    }) : undefined;
  const audit: AuditSink | undefined = options.auditSink ?? (options.auditLogPath ? new AuditFileLog(options.auditLogPath, logger, options.auditLog) : undefined);
  const userRateLimiter = options.limits?.userRate && newUserRateLimiter(options.limits.userRate, logger, metrics);
  const app = createApp(
    {
      ...(options.limits && { limits: options.limits }),
      ...(apf && { priorityAndFairness: apf.filter }),
      ...(userRateLimiter && { userRateLimiter }),
      ...(audit && { audit: { sink: audit, policy: options.auditPolicy ?? defaultAuditPolicy } }),
      isKnownResource: served
        ? (info: RequestInfo) => !!served.catalog.find(info.apiPrefix === 'api' ? '' : info.apiGroup, info.apiVersion, info.resource)
        : () => false,
      logger,
      metrics,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      authentication: served?.authentication ?? serverAuthentication(options, undefined, webhooks, domain, metrics),
      authorizer: served?.authorizer ?? newAuthorizer(modes, { ...(webhookAuthorizer && { webhook: webhookAuthorizer }) }),
      mux,
      domain,
    },
    options.filterChain,
  );
  const callback = app.callback();
  // Client certificates are asked for, not required: one that does not verify against the client CA
  // fails authentication (401), as upstream, rather than the handshake.
  const clientCA = options.authentication?.clientCA;
  const securePort = createSecurePort(
    {
      tls: {
        ...secureServingOptions(options.tls, options.tlsPolicy),
        ...(clientCA && { ca: clientCA, requestCert: true, rejectUnauthorized: false }),
      },
      maxHeaderBytes: MAX_HEADER_BYTES,
      maxStreamsPerConnection: options.http2MaxStreamsPerConnection ?? DEFAULT_HTTP2_MAX_STREAMS,
    },
    (req, res) => {
      tracker.track(res);
      void callback(req as IncomingMessage, res as ServerResponse);
    },
  );
  handleConnectionErrors(securePort.server, logger, metrics.stability);

  const shutdown = (): Promise<void> =>
    shutDown({
      check: shutdownCheck,
      securePort,
      tracker,
      audit,
      stopServing: () => {
        apf?.stop();
        served?.stop();
      },
      userRateLimiter,
      storage,
      logger,
      delayMs: options.shutdownDelayMs ?? 0,
      timeoutMs: options.shutdownTimeoutMs ?? 30_000,
    });
  const shuttingDown: Promise<void>[] = [];
  return {
    app,
    metrics,
    handle: (path, handler) => mux.handle(path, handler),
    registerLongRunning: (res, end) => tracker.registerLongRunning(res, end),
    async listen() {
      const { address, port } = await securePort.listen(options.port ?? 6443, options.bindAddress ?? '0.0.0.0');
      served?.start();
      apf?.start();
      return { address, port };
    },
    shutdown() {
      // Once: every caller waits for the one shutdown.
      if (!shuttingDown.length) shuttingDown.push(shutdown());
      return shuttingDown[0]!;
    },
  };
}
