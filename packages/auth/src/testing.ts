// Request builders and a benchmark fixture for code that tests or measures authorization.
import { ALL_AUTHENTICATED, rbacGroup } from './domain.js';
import type { RbacIndex } from './rbac-index.js';
import type { AccessAttributes, UserInfo } from '@plat/apimachinery';

export const user = (name: string, groups: string[] = [ALL_AUTHENTICATED]): UserInfo => ({ name, groups });

export interface ResourceTarget {
  group?: string;
  resource: string;
  subresource?: string;
  name?: string;
  namespace?: string;
  version?: string;
}

export const resourceAttributes = (who: UserInfo, verb: string, target: ResourceTarget): AccessAttributes => ({
  user: who,
  verb,
  namespace: target.namespace ?? '',
  apiGroup: target.group ?? '',
  apiVersion: target.version ?? 'v1',
  resource: target.resource,
  subresource: target.subresource ?? '',
  name: target.name ?? '',
  isResourceRequest: true,
  path: '',
});

export const nonResourceAttributes = (who: UserInfo, verb: string, path: string): AccessAttributes => ({
  user: who,
  verb,
  namespace: '',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  name: '',
  isResourceRequest: false,
  path,
});

export interface BenchmarkFixtureOptions {
  domain?: string;
  /** RoleBindings naming the user (directly, through a group or as a service account, in turn). Default 1000. */
  roleBindings?: number;
  /** ClusterRoleBindings naming the user, likewise. Default 200. */
  clusterRoleBindings?: number;
  /** Namespaces the RoleBindings are spread over; 1 puts them all in the requests' namespace. Default 1. */
  namespaces?: number;
  /** Bindings of other users, filed alongside, that a decision must not look at. Default 10000. */
  otherBindings?: number;
}

/**
 * Fills `index` for the authorization benchmark: a user bound through many RoleBindings and
 * ClusterRoleBindings, each to its own role granting get/list/watch on its own resource, among
 * bindings of other users. Returns the user and requests: half allowed by a binding spread over
 * the visit order, half refused after looking at every rule.
 */
export function fillBenchmarkIndex(index: RbacIndex, options: BenchmarkFixtureOptions = {}): { user: UserInfo; requests: AccessAttributes[] } {
  const domain = options.domain ?? index.domain;
  const roleBindings = options.roleBindings ?? 1000;
  const clusterRoleBindings = options.clusterRoleBindings ?? 200;
  const namespaces = Math.max(1, options.namespaces ?? 1);
  const otherBindings = options.otherBindings ?? 10000;
  const group = rbacGroup(domain);
  const who: UserInfo = { name: 'system:serviceaccount:ns-0:bench', groups: ['system:serviceaccounts', 'team-a', ALL_AUTHENTICATED] };
  const subjectFor = (i: number): { kind: string; name: string; apiGroup?: string; namespace?: string } =>
    [
      { kind: 'ServiceAccount', name: 'bench', namespace: 'ns-0' },
      { kind: 'Group', name: 'team-a', apiGroup: group },
      { kind: 'User', name: who.name, apiGroup: group },
    ][i % 3]!;
  const rules = (resource: string): { verbs: string[]; apiGroups: string[]; resources: string[] }[] => [
    { verbs: ['get', 'list', 'watch'], apiGroups: ['bench.example'], resources: [resource] },
  ];

  for (let i = 0; i < clusterRoleBindings; i++) {
    index.upsert('ClusterRole', { metadata: { name: `bench-cr-${i}` }, rules: rules(`cluster-things-${i}`) });
    index.upsert('ClusterRoleBinding', {
      metadata: { name: `bench-crb-${i}` },
      roleRef: { apiGroup: group, kind: 'ClusterRole', name: `bench-cr-${i}` },
      subjects: [{ kind: 'User', name: `someone-${i}`, apiGroup: group }, subjectFor(i)],
    });
  }
  for (let i = 0; i < roleBindings; i++) {
    const namespace = `ns-${i % namespaces}`;
    index.upsert('Role', { metadata: { name: `bench-role-${i}`, namespace }, rules: rules(`things-${i}`) });
    index.upsert('RoleBinding', {
      metadata: { name: `bench-rb-${i}`, namespace },
      roleRef: { apiGroup: group, kind: 'Role', name: `bench-role-${i}` },
      subjects: [subjectFor(i)],
    });
  }
  for (let i = 0; i < otherBindings; i++) {
    const binding = {
      roleRef: { apiGroup: group, kind: 'ClusterRole', name: `bench-cr-${i % Math.max(1, clusterRoleBindings)}` },
      subjects: [{ kind: 'User', name: `other-${i}`, apiGroup: group }],
    };
    if (i % 2) index.upsert('ClusterRoleBinding', { metadata: { name: `other-crb-${i}` }, ...binding });
    else index.upsert('RoleBinding', { metadata: { name: `other-rb-${i}`, namespace: `ns-${i % namespaces}` }, ...binding });
  }

  const requests: AccessAttributes[] = [];
  for (let i = 0; i < 100; i++) {
    const binding = (i * 37) % roleBindings;
    const namespace = `ns-${binding % namespaces}`;
    const allowed = i % 4 === 0 ? `cluster-things-${i % Math.max(1, clusterRoleBindings)}` : `things-${binding}`;
    requests.push(resourceAttributes(who, 'get', { group: 'bench.example', resource: allowed, name: `x-${i}`, namespace }));
    requests.push(resourceAttributes(who, 'delete', { group: 'bench.example', resource: `things-${binding}`, name: `x-${i}`, namespace }));
  }
  return { user: who, requests };
}
