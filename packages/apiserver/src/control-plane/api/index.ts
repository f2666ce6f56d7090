// The resource API of a server, built in dependency order: the kinds served, admission (which the
// stores are made with), the catalog of stores, what reads the catalog (custom resources, the RBAC
// index and the authorizer on it, the policies, service-account tokens, authentication), the
// endpoints on the mux, and what runs from start to stop (bootstrap, caches, counts).
import type { ServerResponse } from 'node:http';
import type { Storage } from '@plat/storage';
import type { ResolvedResource, ResourceStore, VirtualServices } from '@plat/registry';
import type { WebhookClientManager } from '@plat/webhook';
import type { Logger } from 'pino';
import { rbacEscalation } from '../../admission/rbac-escalation.js';
import { CustomResourceDefinitionController } from '../../apiextensions/crd-controller.js';
import { rbacBootstrap } from '../../auth/bootstrap-policy.js';
import { RbacAuthorizer } from '@plat/authz';
import { ServiceAccountTokens } from '@plat/authn';
import { tokenServices, virtualServices, type TokenServices } from '../../auth/virtual-services.js';
import type { WebhookAuthorizer } from '@plat/authz';
import type { AuthenticationOptions } from '@plat/authn';
import { newAuthorizer, newSyncAuthorizer, type AuthorizationMode, type Authorizer } from '@plat/authz';
import { CacheReadyCheck } from '../../cache-ready.js';
import type { HealthCheck } from '@plat/filters';
import type { ServerMetrics } from '@plat/metrics';
import type { PathMux } from '@plat/filters';
import { Bootstrapper } from '@plat/endpoints';
import { ResourceCatalog } from '@plat/endpoints';
import { ObjectCounter } from '@plat/metrics';
import { serverAuthentication } from '../authentication.js';
import { LateBinding } from '../late-binding.js';
import type { ApiOptions, ServerOptions } from '../options.js';
import { watchCacheDecision, type WatchCacheWiring } from '../storage.js';
import { ServerAdmission } from './admission.js';
import { servedDefinitions } from './definitions.js';
import { wiredKinds } from './kinds.js';
import { serveEndpoints } from './endpoints.js';
import { servePolicies } from './policies.js';
import { serviceAllocation } from '../../services/allocation.js';

/** kube-apiserver's --event-ttl default: an hour. */
const DEFAULT_EVENT_TTL_SECONDS = 3600;

export interface ApiSources {
  api: ApiOptions;
  /** What authentication and authorization are configured with. */
  security: Pick<ServerOptions, 'authentication' | 'tokenWebhook' | 'serviceAccountTokens'> & {
    modes: readonly AuthorizationMode[];
    /** The Webhook mode's authorizer. */
    webhook?: WebhookAuthorizer;
  };
  storage: Storage;
  watchCache: WatchCacheWiring | undefined;
  mux: PathMux;
  metrics: ServerMetrics;
  logger: Logger;
  webhooks: WebhookClientManager;
  registerLongRunning: (res: ServerResponse, end: () => void) => () => void;
}

export interface ServedApi {
  catalog: ResourceCatalog;
  authorizer: Authorizer;
  authentication: AuthenticationOptions;
  /** Stored objects of a resource by <resource>.<group> when last counted (priority and fairness' list estimates). */
  objectCount(groupResource: string): number | undefined;
  /** Readiness: bootstrap objects created, RBAC objects listed, custom resources and caches ready. */
  checks: HealthCheck[];
  start(): void;
  stop(): void;
}

export function serveApi(sources: ApiSources): ServedApi {
  const { api, security, storage, watchCache, mux, metrics, logger } = sources;
  // The never-stored kinds are served by the catalog's stores and answer with the authorizer and
  // the authenticators built on the catalog's stores; the CustomResourceDefinition kind asks the
  // catalog what is built in: cycles, bound once those exist.
  const services = new LateBinding<VirtualServices>("the never-stored kinds' services", logger);
  const tokenKinds = new LateBinding<TokenServices>("the token kinds' services", logger);
  const builtIn = new LateBinding<ResourceCatalog>('the built-in groups', logger);
  // Services' cluster IPs are IPAddress objects, written through that kind's store, made with the catalog.
  const ipAddresses = new LateBinding<ResourceStore>('the IPAddress store', logger);
  const kinds = wiredKinds(api.definitions, {
    eventTTLSeconds: api.eventTTLSeconds ?? DEFAULT_EVENT_TTL_SECONDS,
    builtInGroup: (group) => builtIn.get().isBuiltInGroup(group),
    tokens: () => tokenKinds.get(),
    issuesTokens: !!security.serviceAccountTokens && ServiceAccountTokens.issues(security.serviceAccountTokens),
    serviceAllocation: serviceAllocation({ clusterIPRange: api.serviceClusterIPRange, nodePortRange: api.serviceNodePortRange }, storage, () => ipAddresses.get()),
  });
  const definitions = servedDefinitions(api, kinds, security.modes);
  const admission = new ServerAdmission(api, logger);
  const cachedResource = watchCacheDecision(watchCache, api.domain, logger);
  const catalog = new ResourceCatalog(definitions, {
    storage,
    ...(watchCache && { storageFor: (resolved: ResolvedResource) => (cachedResource(resolved) ? storage : watchCache.uncached) }),
    domain: api.domain,
    ...(api.features && { features: api.features }),
    admission: admission.chain,
    checks: admission.checks,
    virtualServices: () => services.get(),
  });
  builtIn.set(catalog);
  // The served IPAddress resource's store; where --runtime-config leaves networking/v1alpha1 off, a
  // store of the kind all the same (its objects at the same keys, seen once the version is served).
  const networking = `networking.${api.domain}`;
  const ipAddressKind = kinds.definitions.find((d) => d.kind === 'IPAddress' && d.group === 'networking.{domain}');
  const ipAddressStore = catalog.find(networking, 'v1alpha1', 'ipaddresses')?.store ?? (ipAddressKind && catalog.serve(ipAddressKind).store);
  if (ipAddressStore) ipAddresses.set(ipAddressStore);
  admission.provideFromCatalog(catalog, api);

  const crdGroup = `apiextensions.${api.domain}`;
  const customResources =
    api.customResources && catalog.find(crdGroup, 'v1', 'customresourcedefinitions')
      ? new CustomResourceDefinitionController({
          catalog,
          domain: api.domain,
          build: api.customResources,
          logger,
          manager: api.domain === 'k8s.io' ? 'kube-apiserver' : 'plat-apiserver',
        })
      : undefined;
  const policy = security.modes.includes('RBAC') ? rbacBootstrap(api.domain) : undefined;
  const rbac = policy && new RbacAuthorizer(catalog, api.domain, logger, policy.seed);
  const authorizer = newAuthorizer(security.modes, { ...(rbac && { rbac }), ...(security.webhook && { webhook: security.webhook }) });
  const policies = servePolicies(
    api,
    catalog,
    { decisions: authorizer, atOnce: newSyncAuthorizer(security.modes, { ...(rbac && { rbac }), ...(security.webhook && { webhook: security.webhook.cachedOnly }) }) },
    metrics,
    logger,
  );
  admission.provideChecks({
    ...(rbac && { escalation: rbacEscalation(api.domain, authorizer, rbac.index) }),
    ...(customResources && { customResources: (attributes) => customResources.admission(attributes) }),
    ...(policies.paramCheck && { policyParams: policies.paramCheck }),
  });
  admission.providePolicies(policies.validate);

  const tokens = security.serviceAccountTokens && new ServiceAccountTokens(security.serviceAccountTokens, catalog, api.domain);
  const authentication = serverAuthentication(security, tokens, sources.webhooks, api.domain, metrics);
  services.set(virtualServices(authorizer));
  tokenKinds.set(tokenServices(authentication, tokens));

  // One count per resource, not per version: versions of a group share their objects.
  const counted = (): { prefix: string; name: string }[] => {
    const stored = catalog.all().filter((served) => !served.resolved.definition.virtual);
    const byPrefix = new Map(stored.map(({ resolved }) => [resolved.prefix(''), resolved.group ? `${resolved.resource}.${resolved.group}` : resolved.resource]));
    return [...byPrefix].map(([prefix, name]) => ({ prefix, name }));
  };
  const objectCounter = new ObjectCounter(storage, counted, metrics, logger, api.objectCountIntervalMs ?? 60_000);
  serveEndpoints(api, {
    catalog,
    subresourceDefinitions: kinds.subresourceDefinitions,
    mux,
    metrics,
    registerLongRunning: sources.registerLongRunning,
    watchCache,
    cachedResource,
    countedObjects: (prefix) => objectCounter.countOf(prefix),
  });

  const bootstrapper = new Bootstrapper(catalog, [...(api.bootstrap ?? []), ...(policy?.objects ?? [])], logger);
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
  const keepCaches = (): (() => void) => {
    if (!watchCache) return () => {};
    // Every served resource is cached from now, not from its first request; custom resources as
    // they come to be served (their caches go when they stop being served: catalog.remove).
    watchCache.cache.keep(cachedPrefixes());
    return catalog.onChange(() => watchCache.cache.keep(cachedPrefixes()));
  };
  const stopKeepingCaches: (() => void)[] = [];
  return {
    catalog,
    authorizer,
    authentication,
    objectCount: (groupResource) => objectCounter.countOfResource(groupResource),
    checks: [bootstrapper, ...(rbac ? [rbac] : []), ...(customResources ? [customResources] : []), ...(cacheReady ? [cacheReady] : [])],
    start() {
      stopKeepingCaches.push(keepCaches());
      bootstrapper.start();
      // The RBAC index holds the bootstrap policy (its seed) until its first list replaces it: a
      // list made before the policy is stored would leave anonymous health checks and discovery
      // refused until the watch brings the policy in. Listing after bootstrap closes that window.
      if (rbac) void bootstrapper.whenDone.then(() => rbac.start());
      objectCounter.start();
      customResources?.start();
      policies.start();
    },
    stop() {
      for (const stop of stopKeepingCaches.splice(0)) stop();
      policies.stop();
      objectCounter.stop();
      bootstrapper.stop();
      rbac?.stop();
      customResources?.stop();
    },
  };
}
