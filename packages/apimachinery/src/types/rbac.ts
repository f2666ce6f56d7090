// The parts of RBAC objects that several packages read: the kinds' own files (packages/api), the
// authorizer (packages/auth), and the controller that aggregates ClusterRoles.

/** One permission of a Role or ClusterRole. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** Who a binding grants its role to. */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** The role a binding grants. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}
