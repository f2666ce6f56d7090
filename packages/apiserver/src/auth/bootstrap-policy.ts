// The bootstrap RBAC policy as objects to create at start-up. Until the ClusterRole aggregation
// controller runs, admin, edit and view are created with their rules already aggregated (and their
// aggregationRule, so that the controller takes them over), so that they grant at once.
import { aggregateClusterRole, bootstrapPolicy, type ClusterRole } from '@plat/auth';
import type { KubeObject } from '@plat/registry';
import type { BootstrapObject } from '@plat/endpoints';
import type { RbacSeed } from '@plat/authz';

export function rbacBootstrap(domain: string): { objects: BootstrapObject[]; seed: RbacSeed } {
  const policy = bootstrapPolicy(domain);
  const roles = policy.clusterRoles;
  // view first: edit aggregates view, and admin aggregates edit.
  for (const name of ['view', 'edit', 'admin']) {
    const role = roles.find((candidate) => candidate.metadata.name === name);
    if (role) role.rules = aggregateClusterRole(role, roles);
  }
  const group = `rbac.authorization.${domain}`;
  const as = (resource: string, object: ClusterRole): BootstrapObject => ({
    group,
    version: 'v1',
    resource,
    object: object as unknown as KubeObject,
  });
  return {
    objects: [...roles.map((role) => as('clusterroles', role)), ...policy.clusterRoleBindings.map((binding) => as('clusterrolebindings', binding))],
    seed: { clusterRoles: roles, clusterRoleBindings: policy.clusterRoleBindings },
  };
}
