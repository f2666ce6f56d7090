// The JSON shapes authorization reads: RBAC objects as packages/api stores them, and upstream's authorizer.Attributes.

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface RbacObjectMeta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface LabelSelectorShape {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface Role {
  apiVersion?: string;
  kind?: string;
  metadata: RbacObjectMeta;
  rules?: PolicyRule[] | null;
}

export interface ClusterRole {
  apiVersion?: string;
  kind?: string;
  metadata: RbacObjectMeta;
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorShape[] | null } | null;
}

export interface RoleBinding {
  apiVersion?: string;
  kind?: string;
  metadata: RbacObjectMeta;
  roleRef: RoleRef;
  subjects?: Subject[] | null;
}

export type ClusterRoleBinding = RoleBinding;

/** The four kinds the index keeps, by kind name. */
export interface RbacObjects {
  Role: Role;
  ClusterRole: ClusterRole;
  RoleBinding: RoleBinding;
  ClusterRoleBinding: ClusterRoleBinding;
}

export type RbacKind = keyof RbacObjects;

/** Who is asking: upstream's user.Info. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * One request to authorize: upstream's authorizer.Attributes. For a non-resource request only
 * user, verb (the lower-cased HTTP method) and path matter; for a resource request path is unused.
 */
export interface Attributes {
  user: UserInfo;
  verb: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  isResourceRequest: boolean;
  path: string;
}

/** RBAC never denies: it allows or has no opinion, so that another authorizer may still allow. */
export interface AuthorizationResult {
  decision: 'allow' | 'no-opinion';
  reason: string;
  evaluationError?: string;
}
