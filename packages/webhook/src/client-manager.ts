// Webhook clients by configuration (upstream's ClientManager): one client per distinct
// configuration, the last 200 used kept, so that every webhook call does not build a connection's
// TLS settings again and webhooks configured alike share one. A changed caBundle is another
// configuration, hence another client. Services are reached through the manager's resolver.
import { connectionFor, type WebhookClientConfig } from './client-config.js';
import { WebhookClient, type WebhookBackoff } from './client.js';
import { LruCache } from './lru-cache.js';
import { defaultServiceResolver, type ServiceResolver } from './service-resolver.js';

/** Upstream's defaultCacheSize. */
const CACHE_SIZE = 200;

export interface WebhookClientOptions {
  /** Retries of transient failures (the authentication and authorization webhooks'); default one attempt. */
  backoff?: WebhookBackoff;
}

/** Upstream's cache key: the configuration without the webhook's name (plus, here, the retries). */
function cacheKey(config: WebhookClientConfig, options: WebhookClientOptions): string {
  const { backoff } = options;
  if ('kubeconfig' in config) return JSON.stringify({ kubeconfig: config.kubeconfig, backoff });
  const { url, service, caBundle } = config;
  return JSON.stringify({ url, caBundle, service: service && { name: service.name, namespace: service.namespace, path: service.path, port: service.port }, backoff });
}

export class WebhookClientManager {
  private readonly clients = new LruCache<WebhookClient>(CACHE_SIZE);
  private readonly resolver: ServiceResolver;

  constructor(options: { serviceResolver?: ServiceResolver } = {}) {
    this.resolver = options.serviceResolver ?? defaultServiceResolver;
  }

  /** The client for `config`; throws, and keeps nothing, when the configuration cannot make one. */
  client(config: WebhookClientConfig, options: WebhookClientOptions = {}): WebhookClient {
    const key = cacheKey(config, options);
    const cached = this.clients.get(key);
    if (cached) return cached;
    const client = new WebhookClient(connectionFor(config, this.resolver), { ...(options.backoff && { backoff: options.backoff }) });
    this.clients.set(key, client);
    return client;
  }

  /** How many clients are kept. */
  get size(): number {
    return this.clients.size;
  }
}
