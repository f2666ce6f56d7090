// The webhook client every caller of a webhook shares (upstream's k8s.io/apiserver pkg/util/webhook):
// a client config that is a kubeconfig file or an object's url / service with its caBundle, the
// service resolver, a cache of clients, timeouts and retries; and upstream's checks of a webhook's
// URL and Service for the objects that name one.
export { checkAnswerKind } from './answer-kind.js';
export { defaultWebhookBackoff, WebhookClient, type WebhookBackoff } from './client.js';
export type { WebhookClientConfig } from './client-config.js';
export { WebhookClientManager } from './client-manager.js';
export type { WebhookConnection } from './connection.js';
export { loadWebhookKubeconfig } from './kubeconfig.js';
export type { ServiceResolver } from './service-resolver.js';
export { validateWebhookService, validateWebhookURL } from './validation.js';
