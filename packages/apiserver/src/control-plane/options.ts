// What a server is given (ServerOptions, and ApiOptions for the resource API) and what it is
// (Server): the contract of createServer, apart from how it is built (control-plane/).
import type { ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { CachedStorageOptions, Storage } from '@plat/storage';
import type { StoreFeatures } from '@plat/registry';
import type { BuiltinKind } from '@plat/api';
import type { PluginName } from '@plat/admission';
import type { WebhookBackoff, WebhookConnection } from '@plat/webhook';
import type { ServiceAccountTokenOptions } from '@plat/authn';
import type { WebhookVersion } from '@plat/authn';
import type { BootstrapObject } from '@plat/endpoints';
import type { CustomResourceBuilder } from '../apiextensions/crd-controller.js';
import type { NamedFilter } from '@plat/filters';
import type { AuthenticationOptions } from '@plat/authn';
import type { AuthorizationMode } from '@plat/authz';
import type { Handler, RequestState } from '@plat/filters';
import type { ListMemoryBudget } from '@plat/filters';
import type { LimitOptions } from '@plat/filters';
import type { AuditFileOptions, AuditSink } from '@plat/audit';
import type { AuditPolicy } from '@plat/audit';
import type { ServerMetrics } from '@plat/metrics';
import type { TransformationMetrics } from '../encryption/transformation-metrics.js';
import type { RuntimeConfigEntry } from '../runtime-config.js';
import type { WatchCacheSize } from '../watch-cache-sizes.js';
import type { ServingCertificate, TlsPolicy } from '@plat/serving';
import type { VersionInfo } from '@plat/endpoints';
import type { Logger } from 'pino';

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
  /**
   * --enable-priority-and-fairness: API Priority and Fairness in place of the in-flight limits, over
   * the server's concurrency of limits.maxRequestsInflight + maxMutatingRequestsInflight (400 + 200
   * without limits); the bootstrap configuration kept where the flowcontrol kinds are served.
   * Default off here; the binary's flag defaults to on, as kube-apiserver's.
   */
  priorityAndFairness?: boolean | { /** How often the config producer reconciles the bootstrap objects; default a minute (tests shorten it). */ producerReconcileMs?: number };
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
  /** The filter chain (@plat/filters' filter-chain.ts); default upstream's. */
  filterChain?: readonly NamedFilter[];
}

export interface ApiOptions {
  /**
   * The kinds served (@plat/api builtinKinds, and any others): definitions, or factories the server
   * wires with its settings and services (control-plane/api/kinds.ts). Those served as a subresource
   * of another (virtual.subresourceOf: serviceaccounts/token) are served there.
   */
  definitions: readonly BuiltinKind[];
  /** --api-domain: group names such as rbac.authorization.<domain>. */
  domain: string;
  /** --event-ttl in seconds: how long an Event lives after its last write; default an hour, 0: until deleted. */
  eventTTLSeconds?: number;
  /** --service-cluster-ip-range: one CIDR, or two of different families, comma separated; default 10.0.0.0/24. */
  serviceClusterIPRange?: string;
  /** --service-node-port-range: default 30000-32767. */
  serviceNodePortRange?: string;
  /** Created at start-up when missing (the system namespaces); with RBAC, the bootstrap policy too. */
  bootstrap?: readonly BootstrapObject[];
  /** Namespaces that may not be deleted. */
  immortalNamespaces?: readonly string[];
  /** How often a watch that asked for bookmarks gets one; default 60 s. */
  bookmarkIntervalMs?: number;
  /** --min-request-timeout, seconds: watches without timeoutSeconds last between it and twice it; default 1800. */
  minRequestTimeoutS?: number;
  /** How far behind, in bytes, a watcher may fall before it is closed; default 4 MiB (@plat/endpoints' verbs/watch-backlog.ts). */
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
