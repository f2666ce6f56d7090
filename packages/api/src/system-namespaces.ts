// The namespaces every cluster has from the start: default, and <prefix>-system, -public and
// -node-lease, where the prefix is "kube" under Kubernetes' names and the domain's first label
// ("plat") otherwise.
import type { KubeObject } from '@plat/registry';

export const systemNamespacePrefix = (domain: string): string => (domain === 'k8s.io' ? 'kube' : (domain.split('.')[0] ?? domain));

export function systemNamespaces(domain: string): string[] {
  const prefix = systemNamespacePrefix(domain);
  return ['default', `${prefix}-system`, `${prefix}-public`, `${prefix}-node-lease`];
}

/** The namespaces that may never be deleted, as upstream's immortal namespaces. */
export function immortalNamespaces(domain: string): string[] {
  const prefix = systemNamespacePrefix(domain);
  return ['default', `${prefix}-system`, `${prefix}-public`];
}

export function systemNamespaceObjects(domain: string): KubeObject[] {
  return systemNamespaces(domain).map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
}
