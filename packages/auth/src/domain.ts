// Names derived from --api-domain: upstream's k8s.io API groups and kubernetes.io labels, under our domain.

/** The RBAC API group: rbac.authorization.plat.io, or rbac.authorization.k8s.io. */
export const rbacGroup = (domain: string): string => `rbac.authorization.${domain}`;

/** "kubernetes.io" when the domain is k8s.io, otherwise the domain: the prefix of well-known labels and annotations. */
export const wellKnownPrefix = (domain: string): string => (domain === 'k8s.io' ? 'kubernetes.io' : domain);

/** An upstream API group under our domain: "networking.k8s.io" becomes "networking.plat.io"; "apps" and "" stay. */
export const apiGroupFor = (upstreamGroup: string, domain: string): string =>
  upstreamGroup.endsWith('.k8s.io') ? `${upstreamGroup.slice(0, -'k8s.io'.length)}${domain}` : upstreamGroup;

/** The group every member of has every permission, through the privileged-group authorizer and cluster-admin. */
export const SYSTEM_MASTERS = 'system:masters';
/** The group node agents' credentials carry (their user is system:node:<node name>). */
export const SYSTEM_NODES = 'system:nodes';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';

/** "kube" under k8s.io, else the domain's first label: the prefix of kube-system, kube-controller-manager, ... */
export const systemPrefix = (domain: string): string => (domain === 'k8s.io' ? 'kube' : (domain.split('.')[0] ?? domain));

/** The controller-manager's own user (upstream's system:kube-controller-manager). */
export const controllerManagerUser = (domain: string): string => `system:${systemPrefix(domain)}-controller-manager`;

/** The user name of a service account, as its tokens authenticate. */
export const serviceAccountUsername = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`;
