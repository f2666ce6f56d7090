// Names the API derives from --api-domain, as the server derives them (packages/api): the namespace
// finalizer, the system namespace, and the groups and resources the controllers use.
import type { ResourceRef } from '@plat/client';

const prefix = (domain: string): string => (domain === 'k8s.io' ? 'kube' : (domain.split('.')[0] ?? domain));

/** The finalizer the namespace controller removes: "kubernetes" under k8s.io, else the domain's first label. */
export const namespaceFinalizer = (domain: string): string => (domain === 'k8s.io' ? 'kubernetes' : prefix(domain));

/** plat-system, or kube-system under k8s.io: where the leader election Lease lives. */
export const systemNamespace = (domain: string): string => `${prefix(domain)}-system`;

/** plat-node-lease, or kube-node-lease under k8s.io: where node agents renew their Leases. */
export const nodeLeaseNamespace = (domain: string): string => `${prefix(domain)}-node-lease`;

/** node.plat.io/<name>, or node.kubernetes.io/<name> under k8s.io: the taints of node conditions. */
export const nodeTaintKey = (domain: string, name: 'unreachable' | 'not-ready'): string =>
  `node.${domain === 'k8s.io' ? 'kubernetes.io' : domain}/${name}`;

/** plat-controller-manager, or kube-controller-manager under k8s.io: the Lease's name. */
export const leaseName = (domain: string): string => `${prefix(domain)}-controller-manager`;

export const namespacesRef: ResourceRef = { group: '', version: 'v1', resource: 'namespaces', namespaced: false, kind: 'Namespace' };
export const serviceAccountsRef: ResourceRef = { group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true, kind: 'ServiceAccount' };
export const nodesRef: ResourceRef = { group: '', version: 'v1', resource: 'nodes', namespaced: false, kind: 'Node' };
export const leasesRef = (domain: string): ResourceRef => ({ group: `coordination.${domain}`, version: 'v1', resource: 'leases', namespaced: true, kind: 'Lease' });
export const clusterRolesRef = (domain: string): ResourceRef => ({
  group: `rbac.authorization.${domain}`,
  version: 'v1',
  resource: 'clusterroles',
  namespaced: false,
  kind: 'ClusterRole',
});

/** Metadata finalizers of the garbage collector's propagation policies. */
export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
