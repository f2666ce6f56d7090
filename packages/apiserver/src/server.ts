// The API server: wires storage, health, version and metrics into the app, and owns the secure
// port (HTTP/2 and HTTP/1.1, http-server.ts) and graceful shutdown.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import { CachedStorage, type CachedStorageOptions, type Storage } from '@plat/storage';
import { resolveGroup, type KubeObject, type ResolvedResource, type ResourceDefinition, type StoreFeatures, type VirtualServices } from '@plat/registry';
import { AdmissionChain, alwaysAdmit, alwaysDeny, enabledPlugins, namespaceLifecycle, taintNodesByCondition, type PluginName } from '@plat/admission';
import { LateStoreCheck } from './admission/late-check.js';
import { rbacEscalation } from './admission/rbac-escalation.js';
import { paramAuthorization } from './admission/policy/param-authorization.js';
import { ValidatingAdmissionPolicyPlugin } from './admission/policy/policy-admission.js';
import { PolicyMetrics } from './admission/policy/policy-metrics.js';
import { PolicySource } from './admission/policy/policy-source.js';
import { PolicyStatusWriter } from './admission/policy/status-writer.js';
import { catalogKinds } from './admission/policy/kind-resolver.js';
import { rbacBootstrap } from './auth/bootstrap-policy.js';
import { RbacAuthorizer } from './auth/rbac-authorizer.js';
import { ServiceAccountTokens, type ServiceAccountTokenOptions } from './auth/service-account-tokens.js';
import { CachedTokenAuthenticator } from './auth/token-cache.js';
import { WebhookAuthorizer } from './auth/webhook-authorizer.js';
import { WebhookTokenAuthenticator, type WebhookVersion } from './auth/webhook-token.js';
import { virtualServices } from './auth/virtual-services.js';
import { Bootstrapper, type BootstrapObject } from './resources/bootstrap.js';
import { ResourceCatalog, type ServedResource } from './resources/catalog.js';
import { registerProtobufKinds } from '@plat/protobuf';
import { defaultWebhookBackoff, WebhookClientManager, type WebhookBackoff, type WebhookConnection } from '@plat/webhook';
import { scaleKind } from '@plat/api';
import { Discovery, type ForeignSubresource } from './resources/discovery.js';
import { OpenAPI } from './openapi/handlers.js';
import { CustomResourceDefinitionController, type CustomResourceBuilder } from './apiextensions/crd-controller.js';
import { resourceHandler, virtualSubresourceKey } from './resources/dispatch.js';
import { DEFAULT_WATCH_BACKLOG_BYTES } from './resources/verbs/watch-backlog.js';
import type { Logger } from 'pino';
import { createApp } from './app.js';
import type { NamedFilter } from './filter-chain.js';
import type { AuthenticationOptions } from './authentication.js';
import { newAuthorizer, newSyncAuthorizer, type AuthorizationMode, type Authorizer } from './authorization.js';
import type { Handler, RequestState } from './context.js';
import type { RequestInfo } from './request-info.js';
import { CacheReadyCheck } from './cache-ready.js';
import { ListMemoryBudget } from './list-budget.js';
import { ShutdownCheck, healthHandler, pingCheck, singleCheckHandler, storageCheck, type HealthCheck } from './health.js';
import { newUserRateLimiter, type LimitOptions } from './limits.js';
import { AuditFileLog, type AuditFileOptions, type AuditSink } from './audit.js';
import { defaultAuditPolicy, type AuditPolicy } from './audit-policy.js';
import { ServerMetrics } from './metrics.js';
import type { TransformationMetrics } from './encryption/transformation-metrics.js';
import { registerWatchCacheMetrics, type WatchCacheStatsSource } from './watch-cache-metrics.js';
import { ObjectCounter, timedStorage } from './storage-metrics.js';
import { apiEnablement, type RuntimeConfigEntry } from './runtime-config.js';
import { WatchCacheSizes, groupResourceName, type WatchCacheSize } from './watch-cache-sizes.js';
import { PathMux } from './mux.js';
import { RequestTracker } from './request-tracker.js';
import { MAX_HEADER_BYTES, handleConnectionErrors } from './connection-errors.js';
import { DEFAULT_HTTP2_MAX_STREAMS, createSecurePort } from './http-server.js';
import { secureServingOptions, type ServingCertificate, type TlsPolicy } from '@plat/serving';
import { versionHandler, versionInfo, type VersionInfo } from './version.js';

export interface ServerOptions {
  storage: Storage;
  /** The metrics of `storage`'s value transformers (encryption at rest), served at /metrics. */
  storageTransformationMetrics?: TransformationMetrics;
  /**
   * Serve watches and current lists from a watch cache over `storage` (--watch-cache): true, or its
   * options. Only what reaches `storage` is timed as etcd requests (etcd_request_duration_seconds),
   * not what the cache answers.
   */
  watchCache?: boolean | Omit<CachedStorageOptions, 'onError'>;
  /**
   * --watch-cache-sizes, parsed (kube-apiserver's defaults included by the caller): a resource whose
   * last entry is 0 is served without the watch cache, straight from `storage`, custom resources
   * too. Other sizes change nothing: caches size themselves. Without a watch cache, not consulted.
   */
  watchCacheSizes?: readonly WatchCacheSize[];
  logger: Logger;
  tls: ServingCertificate;
  /** Default 0.0.0.0 (every interface), as kube-apiserver's --bind-address. */
  bindAddress?: string;
  /** Default 6443; 0 picks a free port (listen() returns it). */
  port?: number;
  /**
   * --http2-max-streams-per-connection: the streams an HTTP/2 client may open on one connection
   * (watches included); default 1000 as kube-apiserver's, 0 Go's default (250).
   */
  http2MaxStreamsPerConnection?: number;
  authentication?: AuthenticationOptions;
  /** Tried in order, after system:masters; default ['AlwaysAllow']. RBAC needs `api`, Webhook `authorizationWebhook`. */
  authorizationModes?: AuthorizationMode[];
  /**
   * --authentication-token-webhook-config-file (its connection), -version and -cache-ttl: bearer
   * tokens no other authenticator takes are reviewed by the webhook, its answers cached.
   */
  tokenWebhook?: { connection: WebhookConnection; version: WebhookVersion; cacheTtlMs: number; backoff?: WebhookBackoff };
  /** --authorization-webhook-config-file (its connection), -version and the two cache TTLs: the Webhook mode. */
  authorizationWebhook?: { connection: WebhookConnection; version: WebhookVersion; authorizedTtlMs: number; unauthorizedTtlMs: number; backoff?: WebhookBackoff };
  /** Service-account tokens: verified with these keys, and issued (TokenRequest) with a signing key. Needs `api`. */
  serviceAccountTokens?: ServiceAccountTokenOptions;
  /** Build stamps for /version. */
  build?: Partial<Pick<VersionInfo, 'gitCommit' | 'gitTreeState' | 'buildDate'>>;
  /** How long the storage health check waits for an answer; default 2 s (upstream's etcd check). */
  storageHealthTimeoutMs?: number;
  /** After shutdown begins, keep serving this long with /readyz failing (--shutdown-delay-duration); default 0. */
  shutdownDelayMs?: number;
  /** How long shutdown waits for in-flight requests before closing their connections; default 30 s. */
  shutdownTimeoutMs?: number;
  /** The resource API; absent: only the non-resource endpoints are served. */
  api?: ApiOptions;
  /** In-flight limits and per-user rates; absent: none. */
  limits?: LimitOptions;
  /** --audit-log-path: the file audit events are appended to; absent: no audit log. */
  auditLogPath?: string;
  /** --audit-log-format and the rotation flags (--audit-log-maxsize, -maxbackup, -maxage). */
  auditLog?: AuditFileOptions;
  /** Instead of auditLogPath: where audit events go (tests). */
  auditSink?: AuditSink;
  /** --audit-policy-file, decoded; absent: every request at Metadata when it completes. */
  auditPolicy?: AuditPolicy;
  /** --tls-min-version and --tls-cipher-suites; default TLS 1.2 and node's suites. */
  tlsPolicy?: TlsPolicy;
  /** --request-timeout: the deadline of every request but watches (504 past it); default 60 s, 0 none. */
  requestTimeoutMs?: number;
  /** --show-hidden-metrics-for-version (checked by the caller): long-deprecated metrics shown again. */
  showHiddenMetricsForVersion?: string;
  /** The filter chain (filter-chain.ts); default upstream's. */
  filterChain?: readonly NamedFilter[];
}

export interface ApiOptions {
  definitions: readonly ResourceDefinition[];
  /** --api-domain: group names such as rbac.authorization.<domain>. */
  domain: string;
  /** --event-ttl in seconds: how long an Event lives after its last write; default an hour, 0: until deleted. */
  eventTTLSeconds?: number;
  /** Created at start-up when missing (the system namespaces); with RBAC, the bootstrap policy too. */
  bootstrap?: readonly BootstrapObject[];
  /** Kinds served as a subresource of another (virtual.subresourceOf): serviceaccounts/token. */
  subresourceDefinitions?: readonly ResourceDefinition[];
  /** Namespaces that may not be deleted. */
  immortalNamespaces?: readonly string[];
  /** How often a watch that asked for bookmarks gets one; default 60 s. */
  bookmarkIntervalMs?: number;
  /** --min-request-timeout, seconds: watches without timeoutSeconds last between it and twice it; default 1800. */
  minRequestTimeoutS?: number;
  /** How far behind, in bytes, a watcher may fall before it is closed; default 4 MiB (resources/verbs/watch-backlog.ts). */
  watchBacklogBytes?: number;
  /** APIResponseCompression (default true): gzip large get and list responses. */
  responseCompression?: boolean;
  /** What lists may hold in memory between them; default: a budget over this process's heap. */
  listMemoryBudget?: ListMemoryBudget;
  /** WatchList (default off) and APIListChunking (default on), honoured by every store. */
  features?: StoreFeatures;
  /** How often apiserver_storage_objects is counted; default 60 s (upstream's). */
  objectCountIntervalMs?: number;
  /** --runtime-config, parsed: the versions and resources served. Default: all but alpha versions. */
  runtimeConfig?: readonly RuntimeConfigEntry[];
  /**
   * How a CustomResourceDefinition's served versions become resources: with it, and with the
   * CustomResourceDefinition kind among `definitions`, the server serves custom resources.
   */
  customResources?: CustomResourceBuilder;
  /**
   * --enable-admission-plugins and --disable-admission-plugins, resolved: the admission plugins that
   * run, in order (@plat/admission enabledPlugins). Default: upstream's default set.
   */
  admissionPlugins?: readonly PluginName[];
  /**
   * The ValidatingAdmissionPolicy feature gate (beta, off by default in Kubernetes 1.28): the
   * policies and bindings are enforced on every request and their status written. Their API
   * (admissionregistration.<domain> v1beta1 or v1alpha1) must be served (--runtime-config).
   */
  validatingAdmissionPolicy?: boolean;
}

export interface Server {
  readonly app: Koa<RequestState>;
  readonly metrics: ServerMetrics;
  /** Adds a handler for one non-resource path (exact match). */
  handle(path: string, handler: Handler): void;
  /**
   * Marks a response as long-running (a watch, a stream): shutdown does not wait for it but calls
   * `end`, which must end it cleanly. Returns a function to unregister it.
   */
  registerLongRunning(res: ServerResponse, end: () => void): () => void;
  listen(): Promise<{ address: string; port: number }>;
  /** Graceful: not ready, stop accepting, drain, end streams, close connections, close storage. */
  shutdown(): Promise<void>;
}

/** How long streams get to end after being told to, before their connections are closed. */
const STREAM_END_GRACE_MS = 5000;

/** kube-apiserver's --event-ttl default: an hour. */
const DEFAULT_EVENT_TTL_SECONDS = 3600;

/** Objects weighed for a resource's first list estimate (list-budget.ts): a few, spread through it. */
const OBJECTS_SAMPLED_FOR_SIZE = 16;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createServer(options: ServerOptions): Server {
  const { logger } = options;
  const metrics = new ServerMetrics(options.showHiddenMetricsForVersion ? { showHiddenMetricsForVersion: options.showHiddenMetricsForVersion } : {});
  options.storageTransformationMetrics?.register(metrics.stability);
  // Every call that reaches the store is timed (etcd_request_duration_seconds); with a watch cache
  // made here, that is what the cache passes on, not what it answers itself.
  const timed = timedStorage(options.storage, metrics);
  const storage: Storage = options.watchCache
    ? new CachedStorage(timed, {
        ...(typeof options.watchCache === 'object' ? options.watchCache : {}),
        onError: (err, what) => logger.warn({ err, what }, 'watch cache'),
      })
    : timed;
  const cached = (storage === timed ? options.storage : storage) as Storage & { stats?: WatchCacheStatsSource };
  if (typeof cached.stats === 'function') registerWatchCacheMetrics(metrics.stability, () => cached.stats!());
  // The watch cache, whether made here or given: started for every served resource at start-up but
  // those --watch-cache-sizes leaves without one, which are served by the (timed) store under it.
  const watchCache =
    cached instanceof CachedStorage
      ? { cache: cached, uncached: storage === timed ? timedStorage(cached.inner, metrics) : timed, sizes: options.watchCacheSizes ?? [] }
      : undefined;
  const mux = new PathMux();
  const tracker = new RequestTracker();
  const shutdownCheck = new ShutdownCheck();

  const etcd = storageCheck(storage, options.storageHealthTimeoutMs ?? 2000);
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
  const served = options.api
    ? serveApi(options.api, mux, logger, metrics, (res, end) => tracker.registerLongRunning(res, end), storage, watchCache, {
        modes,
        ...(webhookAuthorizer && { webhook: webhookAuthorizer }),
        ...(options.serviceAccountTokens && { serviceAccountTokens: options.serviceAccountTokens }),
        authentication: () => authentication,
      })
    : undefined;
  if (options.serviceAccountTokens && !served) throw new Error('service-account tokens need the resource API');
  const apiAudiences = served?.tokens?.apiAudiences ?? options.authentication?.apiAudiences ?? [];
  // Upstream's order: the token file, service accounts, OIDC, then the webhook, which is asked
  // about every token the others do not take.
  const authentication: AuthenticationOptions = {
    ...options.authentication,
    tokenAuthenticators: [
      ...(served?.tokens ? [served.tokens] : []),
      ...(options.authentication?.tokenAuthenticators ?? []),
      ...(options.tokenWebhook ? [tokenWebhookAuthenticator(options.tokenWebhook, webhooks, domain, apiAudiences, metrics)] : []),
    ],
    apiAudiences,
  };
  // /livez leaves storage out: restarting a replica does not bring etcd back.
  const endpoints: Record<string, HealthCheck[]> = {
    healthz: [pingCheck, etcd],
    livez: [pingCheck],
    readyz: [pingCheck, etcd, shutdownCheck, ...(served?.checks ?? [])],
  };
  for (const [endpoint, checks] of Object.entries(endpoints)) {
    mux.handle(`/${endpoint}`, healthHandler(endpoint, checks, logger, metrics.health));
    for (const check of checks) mux.handle(`/${endpoint}/${check.name}`, singleCheckHandler(check, logger));
  }
  mux.handle('/version', versionHandler(versionInfo(options.build)));
  mux.handle('/metrics', metrics.handler());
  mux.handle('/metrics/slis', metrics.handler(metrics.health.registry));

  const audit: AuditSink | undefined = options.auditSink ?? (options.auditLogPath ? new AuditFileLog(options.auditLogPath, logger, options.auditLog) : undefined);
  const userRateLimiter = options.limits?.userRate && newUserRateLimiter(options.limits.userRate, logger, metrics);
  const app = createApp(
    {
      ...(options.limits && { limits: options.limits }),
      ...(userRateLimiter && { userRateLimiter }),
      ...(audit && { audit: { sink: audit, policy: options.auditPolicy ?? defaultAuditPolicy } }),
      isKnownResource: served
        ? (info: RequestInfo) => !!served.catalog.find(info.apiPrefix === 'api' ? '' : info.apiGroup, info.apiVersion, info.resource)
        : () => false,
      logger,
      metrics,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      authentication,
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

  let shutdownPromise: Promise<void> | undefined;
  async function runShutdown(): Promise<void> {
    const delayMs = options.shutdownDelayMs ?? 0;
    const timeoutMs = options.shutdownTimeoutMs ?? 30_000;
    shutdownCheck.begin();
    logger.info({ delayMs }, 'shutdown: /readyz now fails');
    if (delayMs > 0) await sleep(delayMs);

    // Requests that still arrive on open connections are served; an HTTP/1.1 connection then
    // closes, an HTTP/2 one is told to go (GOAWAY) once its streams are done, so that the client
    // reconnects elsewhere.
    const closed = securePort.close();
    securePort.closeIdleConnections();
    logger.info({ inFlight: tracker.pending }, 'shutdown: stopped accepting connections, waiting for requests in flight');
    const drained = await tracker.waitFor(() => tracker.pending, timeoutMs);
    if (!drained) logger.warn({ inFlight: tracker.pending, timeoutMs }, 'shutdown: requests still in flight at the timeout; closing them');

    const streams = tracker.endLongRunning();
    if (streams) logger.info({ streams }, 'shutdown: ended long-running requests');
    await tracker.waitFor(() => tracker.total, drained ? Math.min(STREAM_END_GRACE_MS, timeoutMs) : 0);
    // Whatever is still open now is idle keep-alive or past its deadline.
    securePort.closeAllConnections();
    await closed;
    // Every response has closed, so every audit event has been handed to the log: flush it.
    await audit?.close();
    served?.stop();
    await userRateLimiter?.close?.();
    await storage.close();
    logger.info('shutdown: complete');
  }

  return {
    app,
    metrics,
    handle: (path, handler) => mux.handle(path, handler),
    registerLongRunning: (res, end) => tracker.registerLongRunning(res, end),
    async listen() {
      const { address, port } = await securePort.listen(options.port ?? 6443, options.bindAddress ?? '0.0.0.0');
      served?.start();
      return { address, port };
    },
    shutdown() {
      shutdownPromise ??= runShutdown();
      return shutdownPromise;
    },
  };
}

/** kube-apiserver's token webhook: the webhook's reviews behind a cache of --authentication-token-webhook-cache-ttl. */
function tokenWebhookAuthenticator(
  webhook: NonNullable<ServerOptions['tokenWebhook']>,
  webhooks: WebhookClientManager,
  domain: string,
  apiAudiences: readonly string[],
  metrics: ServerMetrics,
): CachedTokenAuthenticator {
  const client = webhooks.client({ kubeconfig: webhook.connection }, { backoff: webhook.backoff ?? defaultWebhookBackoff });
  const reviews = new WebhookTokenAuthenticator({ client, domain, version: webhook.version, implicitAudiences: apiAudiences });
  return new CachedTokenAuthenticator(reviews, { successTtlMs: webhook.cacheTtlMs, failureTtlMs: webhook.cacheTtlMs, stability: metrics.stability });
}

interface ApiSecurity {
  modes: readonly AuthorizationMode[];
  /** The Webhook mode's authorizer. */
  webhook?: WebhookAuthorizer;
  serviceAccountTokens?: ServiceAccountTokenOptions;
  /** The server's authentication settings, for TokenReview (read when a review comes). */
  authentication: () => AuthenticationOptions;
}

interface ServedApi {
  catalog: ResourceCatalog;
  authorizer: Authorizer;
  tokens: ServiceAccountTokens | undefined;
  /** Readiness: bootstrap objects created, RBAC objects listed. */
  checks: HealthCheck[];
  start(): void;
  stop(): void;
}

function serveApi(
  api: ApiOptions,
  mux: PathMux,
  logger: Logger,
  metrics: ServerMetrics,
  registerLongRunning: (res: ServerResponse, end: () => void) => () => void,
  storage: Storage,
  watchCache: WatchCacheWiring | undefined,
  security: ApiSecurity,
): ServedApi {
  // Versions and resources turned off by --runtime-config are not in the catalog: discovery,
  // OpenAPI and dispatch (404) all follow from it.
  // The codec learns each kind's Protobuf form from its definition, before the first object.
  // The kinds subresources are served as too: Scale, for the custom resources that may come.
  const subresourceKinds = api.definitions.flatMap((definition) => Object.values(definition.subresources ?? {}).flatMap((sub) => (sub.servedAs ? [sub.servedAs] : [])));
  registerProtobufKinds([...api.definitions, ...(api.subresourceDefinitions ?? []), scaleKind, ...subresourceKinds]);
  const enabled = apiEnablement(api.runtimeConfig ?? [], api.definitions, api.domain);
  const definitions = api.definitions.filter((definition) => enabled(resolveGroup(definition.group, api.domain), definition.version, definition.resource));
  const required = [
    { group: '', version: 'v1', resource: 'namespaces' },
    ...(security.modes.includes('RBAC')
      ? ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'].map((resource) => ({ group: `rbac.authorization.${api.domain}`, version: 'v1', resource }))
      : []),
  ];
  for (const { group, version, resource } of required) {
    const defined = api.definitions.some((d) => resolveGroup(d.group, api.domain) === group && d.version === version && d.resource === resource);
    if (defined && !enabled(group, version, resource)) throw new Error(`--runtime-config: ${group ? `${group}/` : ''}${version}/${resource} cannot be disabled: the server needs it`);
  }
  // The admission chain and the kinds' own checks are given to the stores when the catalog is built;
  // what they need of the catalog (namespaces, the RBAC index, the policies) is provided once it
  // exists, and until then they refuse writes (fail closed). The never-stored kinds' services need
  // the authorizer built on the catalog: they come later.
  const admission = new AdmissionChain(api.admissionPlugins ?? enabledPlugins({ enable: [], disable: [] }), logger);
  const escalationCheck = new LateStoreCheck('the RBAC escalation check', logger);
  const customResourceCheck = new LateStoreCheck("the custom resources' definition check", logger);
  const paramCheck = new LateStoreCheck("the admission policies' parameter authorization", logger);
  let customResources: CustomResourceDefinitionController | undefined;
  let services: VirtualServices | undefined;
  const cachedResource = watchCacheDecision(watchCache, api.domain, logger);
  const catalog = new ResourceCatalog(definitions, {
    storage,
    ...(watchCache && { storageFor: (resolved: ResolvedResource) => (cachedResource(resolved) ? storage : watchCache.uncached) }),
    domain: api.domain,
    eventTTLSeconds: api.eventTTLSeconds ?? DEFAULT_EVENT_TTL_SECONDS,
    ...(api.features && { features: api.features }),
    admission,
    // After the kind's validation: who may name a policy's parameters (upstream's strategies).
    checks: { beforeValidation: [escalationCheck.check, customResourceCheck.check], afterValidation: [paramCheck.check] },
    virtualServices: () => services,
  });
  const namespaces = catalog.store('', 'v1', 'namespaces');
  admission.provide(namespaceLifecycle({ peek: (name) => namespaces.peek('', name), get: (name) => namespaces.get('', name) }, api.immortalNamespaces ?? []));
  admission.provide(taintNodesByCondition(api.domain));
  admission.provide(alwaysAdmit);
  admission.provide(alwaysDeny);
  const crdGroup = `apiextensions.${api.domain}`;
  if (api.customResources && catalog.find(crdGroup, 'v1', 'customresourcedefinitions')) {
    customResources = new CustomResourceDefinitionController({
      catalog,
      domain: api.domain,
      build: api.customResources,
      logger,
      manager: api.domain === 'k8s.io' ? 'kube-apiserver' : 'plat-apiserver',
    });
  }
  const policy = security.modes.includes('RBAC') ? rbacBootstrap(api.domain) : undefined;
  const rbac = policy && new RbacAuthorizer(catalog, api.domain, logger, policy.seed);
  const authorizer = newAuthorizer(security.modes, { ...(rbac && { rbac }), ...(security.webhook && { webhook: security.webhook }) });
  // Without RBAC, the authorizer (AlwaysAllow, Webhook) is asked for nothing an escalation check asks.
  escalationCheck.provide(rbac ? rbacEscalation(api.domain, authorizer, rbac.index) : () => {});
  const crdController = customResources;
  customResourceCheck.provide(crdController ? (attributes) => crdController.admission(attributes) : () => {});
  const policyGroup = `admissionregistration.${api.domain}`;
  const policyVersion = ['v1beta1', 'v1alpha1'].find((version) => catalog.find(policyGroup, version, 'validatingadmissionpolicies') && catalog.find(policyGroup, version, 'validatingadmissionpolicybindings'));
  // Without the policy kinds served there is no policy to name parameters in.
  paramCheck.provide(policyVersion ? paramAuthorization(catalog, api.domain, authorizer) : () => {});
  let policySource: PolicySource | undefined;
  let policyStatus: PolicyStatusWriter | undefined;
  // Declared whether the gate is on or not, as kube-apiserver registers them.
  const policyMetrics = new PolicyMetrics(metrics.stability);
  let policies: ValidatingAdmissionPolicyPlugin | undefined;
  if (api.validatingAdmissionPolicy) {
    if (!policyVersion) {
      throw new Error(
        `the ValidatingAdmissionPolicy feature gate needs ${policyGroup}/v1beta1 or v1alpha1 served: add --runtime-config=${api.domain === 'k8s.io' ? 'admissionregistration.k8s.io' : policyGroup}/v1beta1=true`,
      );
    }
    const policyStore = catalog.store(policyGroup, policyVersion, 'validatingadmissionpolicies');
    policySource = new PolicySource(policyStore, catalog.store(policyGroup, policyVersion, 'validatingadmissionpolicybindings'), logger, policyMetrics);
    policies = new ValidatingAdmissionPolicyPlugin({
      catalog,
      domain: api.domain,
      source: policySource,
      metrics: policyMetrics,
      authorizer: newSyncAuthorizer(security.modes, { ...(rbac && { rbac }), ...(security.webhook && { webhook: security.webhook.cachedOnly }) }),
    });
    const writer = new PolicyStatusWriter(policyStore, catalogKinds(catalog), logger);
    policySource.onPolicy.push((policy) => writer.observe(policy));
    policyStatus = writer;
  }
  // The feature gate off, upstream's plugin admits everything: there are no policies to enforce.
  const enforced = policies;
  admission.provide({ name: 'ValidatingAdmissionPolicy', validate: enforced ? (attributes) => enforced.admission(attributes) : () => {} });
  const tokens = security.serviceAccountTokens && new ServiceAccountTokens(security.serviceAccountTokens, catalog, api.domain);
  services = virtualServices(authorizer, security.authentication, tokens);

  const subresources = new Map<string, ServedResource>();
  const foreign: ForeignSubresource[] = [];
  for (const definition of api.subresourceDefinitions ?? []) {
    if (definition.virtual?.needsTokenIssuer && !tokens?.canIssue) continue;
    const parent = definition.virtual?.subresourceOf;
    if (!parent) throw new Error(`${definition.kind} is not a subresource (virtual.subresourceOf)`);
    const served = catalog.serve(definition as ResourceDefinition<KubeObject>);
    subresources.set(virtualSubresourceKey(parent.group, parent.version, parent.resource, parent.subresource), served);
    foreign.push({ parent: { ...parent, group: resolveGroup(parent.group, api.domain) }, subresource: parent.subresource, resolved: served.resolved, verbs: ['create'] });
  }

  const discovery = new Discovery(catalog, api.domain, foreign);
  mux.handleDynamic((path) => discovery.handlerFor(path));
  const openapi = new OpenAPI(catalog, api.domain);
  for (const [path, handler] of openapi.handlers()) mux.handle(path, handler);
  mux.handleDynamic((path) => openapi.handlerFor(path));
  mux.handleResources(
    resourceHandler(
      catalog,
      {
        domain: api.domain,
        registerLongRunning,
        bookmarkIntervalMs: api.bookmarkIntervalMs ?? 60_000,
        minRequestTimeoutS: api.minRequestTimeoutS ?? 1800,
        watchBacklogBytes: api.watchBacklogBytes ?? DEFAULT_WATCH_BACKLOG_BYTES,
        responseCompression: api.responseCompression ?? true,
        metrics,
        listBudget: api.listMemoryBudget ?? new ListMemoryBudget(),
        objectCount: (prefix) => watchCache?.cache.objectCount(prefix) ?? objectCounter.countOf(prefix),
        sampleObjects: (prefix) => watchCache?.cache.sampleObjects(prefix, OBJECTS_SAMPLED_FOR_SIZE),
        listsFromCache: (resolved) => {
          const cached = cachedResource(resolved);
          return { any: cached, consistent: cached && (watchCache?.cache.servesConsistentLists ?? false) };
        },
      },
      subresources,
    ),
  );
  const bootstrapper = new Bootstrapper(catalog, [...(api.bootstrap ?? []), ...(policy?.objects ?? [])], logger);
  const counted = (): { prefix: string; name: string }[] => {
    const stored = catalog.all().filter((served) => !served.resolved.definition.virtual);
    // One count per resource, not per version: versions of a group share their objects.
    const byPrefix = new Map(stored.map(({ resolved }) => [resolved.prefix(''), resolved.group ? `${resolved.resource}.${resolved.group}` : resolved.resource]));
    return [...byPrefix].map(([prefix, name]) => ({ prefix, name }));
  };
  // The prefixes of the resources served with the watch cache (two resources may share one: Events).
  const cachedPrefixes = (): string[] => [
    ...new Set(
      catalog
        .all()
        .filter(({ resolved }) => !resolved.definition.virtual && cachedResource(resolved))
        .map(({ resolved }) => resolved.prefix('')),
    ),
  ];
  const cacheReady = watchCache && new CacheReadyCheck(watchCache.cache, cachedPrefixes, customResources);
  let stopKeepingCaches: (() => void) | undefined;
  const objectCounter = new ObjectCounter(
    storage,
    counted,
    metrics,
    logger,
    api.objectCountIntervalMs ?? 60_000,
  );
  return {
    catalog,
    authorizer,
    tokens,
    checks: [bootstrapper, ...(rbac ? [rbac] : []), ...(customResources ? [customResources] : []), ...(cacheReady ? [cacheReady] : [])],
    start() {
      if (watchCache) {
        // Every served resource is cached from now, not from its first request; custom resources
        // as they come to be served (their caches go when they stop being served: catalog.remove).
        watchCache.cache.keep(cachedPrefixes());
        stopKeepingCaches = catalog.onChange(() => watchCache.cache.keep(cachedPrefixes()));
      }
      bootstrapper.start();
      // The RBAC index holds the bootstrap policy (its seed) until its first list replaces it: a
      // list made before the policy is stored would leave anonymous health checks and discovery
      // refused until the watch brings the policy in. Listing after bootstrap closes that window.
      if (rbac) void bootstrapper.whenDone.then(() => rbac.start());
      objectCounter.start();
      customResources?.start();
      policySource?.start();
    },
    stop() {
      stopKeepingCaches?.();
      policySource?.stop();
      policyStatus?.stop();
      objectCounter.stop();
      bootstrapper.stop();
      rbac?.stop();
      customResources?.stop();
    },
  };
}

/** The watch cache a server keeps, the store it is over, and --watch-cache-sizes. */
interface WatchCacheWiring {
  cache: CachedStorage;
  /** What serves the resources left without the cache: the store under it, timed. */
  uncached: Storage;
  sizes: readonly WatchCacheSize[];
}

/**
 * Whether a resource is served with the watch cache: with one, unless --watch-cache-sizes gives it
 * 0. kube-apiserver 1.28 applies the flag to custom resources too (its help text says otherwise:
 * the CRD storage's options are built from the uncleared copy, kubernetes/kubernetes#141217), so
 * they are decided the same way. Logged once per resource as upstream's storage factory does.
 */
function watchCacheDecision(watchCache: WatchCacheWiring | undefined, domain: string, logger: Logger): (resolved: ResolvedResource) => boolean {
  if (!watchCache) return () => false;
  const sizes = new WatchCacheSizes(watchCache.sizes, domain);
  const logged = new Set<string>();
  return ({ group, resource }) => {
    const disabled = sizes.disables(group, resource);
    const name = groupResourceName(group, resource);
    if (!logged.has(name)) {
      logged.add(name);
      const size = sizes.sizeOf(group, resource);
      if (size !== undefined && size > 0) logger.warn(`Dropping watch-cache-size for ${name} - watchCache size is now dynamic`);
      if (disabled) logger.debug({ resource: name }, 'Not using watch cache');
    }
    return !disabled;
  };
}
