// The service account each controller runs as with --use-service-account-credentials: upstream's
// names, which the server's bootstrap policy (packages/auth) binds to system:controller:<name>.
import type { ControllerName } from './options.js';

export const controllerServiceAccounts: Record<ControllerName, string> = {
  'namespace-controller': 'namespace-controller',
  'serviceaccount-controller': 'service-account-controller',
  'clusterrole-aggregation-controller': 'clusterrole-aggregation-controller',
  'garbage-collector-controller': 'generic-garbage-collector',
  'crd-cleanup-controller': 'crd-cleanup-controller',
  'node-lifecycle-controller': 'node-controller',
};
