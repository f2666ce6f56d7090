// How a server authenticates requests, put together in upstream's order: the token file, service
// accounts, OIDC, then the token webhook, which is asked about every token the others do not take.
import { defaultWebhookBackoff, type WebhookClientManager } from '@plat/webhook';
import type { AuthenticationOptions } from '@plat/authn';
import type { ServiceAccountTokens } from '@plat/authn';
import { CachedTokenAuthenticator } from '@plat/authn';
import { WebhookTokenAuthenticator } from '@plat/authn';
import type { ServerMetrics } from '@plat/metrics';
import type { ServerOptions } from './options.js';

export function serverAuthentication(
  options: Pick<ServerOptions, 'authentication' | 'tokenWebhook'>,
  tokens: ServiceAccountTokens | undefined,
  webhooks: WebhookClientManager,
  domain: string,
  metrics: ServerMetrics,
): AuthenticationOptions {
  const apiAudiences = tokens?.apiAudiences ?? options.authentication?.apiAudiences ?? [];
  return {
    ...options.authentication,
    tokenAuthenticators: [
      ...(tokens ? [tokens] : []),
      ...(options.authentication?.tokenAuthenticators ?? []),
      ...(options.tokenWebhook ? [tokenWebhookAuthenticator(options.tokenWebhook, webhooks, domain, apiAudiences, metrics)] : []),
    ],
    apiAudiences,
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
