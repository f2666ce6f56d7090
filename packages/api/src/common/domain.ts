// Names derived from --api-domain: upstream's k8s.io API groups and kubernetes.io labels, under our domain.

/** The RBAC API group: rbac.authorization.plat.io, or rbac.authorization.k8s.io. */
export const rbacGroup = (domain: string): string => `rbac.authorization.${domain}`;

/**
 * The prefix of well-known label, annotation and resource names: upstream's "kubernetes.io" when the
 * domain is k8s.io, otherwise the domain itself ("plat.io/metadata.name").
 */
export const wellKnownPrefix = (domain: string): string => (domain === 'k8s.io' ? 'kubernetes.io' : domain);
