// The JSON shapes authorization reads: RBAC objects as packages/api stores them. The vocabulary it
// shares with other packages (users, access attributes and decisions, rules) is @plat/apimachinery's.
import type { PolicyRule, RoleRef, Subject } from '@plat/apimachinery';

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
