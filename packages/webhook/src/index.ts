// The webhook client every caller of a webhook shares (upstream's k8s.io/apiserver pkg/util/webhook):
// today the authentication and authorization webhooks', named by kubeconfig-format files.
export { checkAnswerKind, WebhookClient, type WebhookBackoff } from './client.js';
export { loadWebhookKubeconfig, type WebhookConnection } from './kubeconfig.js';
