// RBAC escalation prevention, as upstream's policy-based RBAC storage wraps the standard storage:
// writing a Role or ClusterRole needs every permission it grants (or the escalate verb), writing a
// binding needs the bind verb on its role (or every permission in it), and an aggregationRule
// needs full authority. Applied as an admission check on the four RBAC kinds; the requester comes
// from the request scope, and writes made by the server itself (bootstrap) are not checked.
import { isDeepStrictEqual } from 'node:util';
import { newForbidden, newNotFound } from '@plat/apimachinery';
import {
  bindCheckAttributes,
  confirmAggregationRuleAllowed,
  confirmNoEscalation,
  escalateCheckAttributes,
  escalationAllowed,
  rbacGroup,
  type RbacIndex,
} from '@plat/auth';
import type { PolicyRule, RoleRef } from '@plat/apimachinery';
import type { StoreCheck, KubeObject } from '@plat/registry';
import type { Authorizer } from '@plat/authz';

/** Upstream's IsOnlyMutatingGCFields: the update changes nothing but owner references and finalizers. */
export function onlyGarbageCollectionFields(object: KubeObject, old: KubeObject): boolean {
  const comparable = (o: KubeObject): unknown => {
    const { apiVersion: _v, kind: _k, metadata, ...rest } = o;
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, generation: _g, ...meta } = metadata;
    return { ...rest, metadata: meta };
  };
  return isDeepStrictEqual(comparable(object), comparable(old));
}

export function rbacEscalation(domain: string, authorizer: Authorizer, index: RbacIndex): StoreCheck {
  const group = rbacGroup(domain);
  return async ({ operation, resource, namespace, name, object, oldObject, user }) => {
    if (resource.group !== group || (operation !== 'CREATE' && operation !== 'UPDATE') || !object) return;
    // The server's own writes (bootstrap) carry no user and are not checked.
    if (!user) return;
    if (escalationAllowed(user)) return;
    // The request the check stands for, as upstream's RequestInfo: a create names no object in its path.
    const requestInfo = { isResourceRequest: true, apiGroup: resource.group, resource: resource.resource, name: operation === 'CREATE' ? '' : name, namespace };
    const refuse = (message: string): never => {
      throw newForbidden(resource.groupResource, name, new Error(message));
    };
    const gcOnly = operation === 'UPDATE' && !!oldObject && onlyGarbageCollectionFields(object, oldObject);

    if (resource.resource === 'roles' || resource.resource === 'clusterroles') {
      const escalate = escalateCheckAttributes(domain, user, requestInfo);
      if (escalate && (await authorizer.authorize({ ...escalate, user })).decision === 'Allow') return;
      if (gcOnly) return;
      const check = confirmNoEscalation(index, user, namespace, (object.rules as PolicyRule[] | undefined) ?? []);
      if (!check.ok) refuse(check.message);
      if (resource.resource === 'clusterroles' && (object.aggregationRule || oldObject?.aggregationRule)) {
        const aggregation = confirmAggregationRuleAllowed(index, user, namespace);
        if (!aggregation.ok) refuse(aggregation.message);
      }
      return;
    }

    if (resource.resource === 'rolebindings' || resource.resource === 'clusterrolebindings') {
      if (gcOnly) return;
      const roleRef = object.roleRef as RoleRef | undefined;
      const bind = roleRef && bindCheckAttributes(user, roleRef, namespace);
      // Another roleRef kind (or none) is for validation to refuse.
      if (!roleRef || !bind) return;
      if ((await authorizer.authorize({ ...bind, user })).decision === 'Allow') return;
      const referenced = index.roleReferenceRules(roleRef, namespace);
      if (referenced.error !== undefined) {
        // As upstream's lister answers: `clusterrole.rbac.authorization.plat.io "x" not found`.
        throw newNotFound({ group, resource: roleRef.kind.toLowerCase() }, roleRef.name);
      }
      const check = confirmNoEscalation(index, user, namespace, referenced.rules);
      if (!check.ok) refuse(check.message);
    }
  };
}
