// Who may point a policy at parameters, as upstream's policy and binding strategies authorize it
// (validatingadmissionpolicy/authz.go, validatingadmissionpolicybinding/authz.go): writing a policy
// with a paramKind needs `get` on every object of that kind, and a binding with a paramRef `get` on
// what it names, unless the paramKind or paramRef is unchanged. Checked once the object is valid
// (the validating phase), refused as upstream's strategies refuse it: a 422 Forbidden field error.
import { forbidden, newInvalid, newPath, type AccessAttributes, type UserInfo } from '@plat/apimachinery';
import { parseGroupVersion, type ParamKind, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyBinding } from '@plat/api';
import type { AdmissionAttributes, StoreCheck, KubeObject } from '@plat/registry';
import { isDeepStrictEqual } from 'node:util';
import type { Authorizer } from '@plat/authz';
import type { ResourceCatalog } from '@plat/endpoints';
import { SYSTEM_PRIVILEGED_GROUP } from '@plat/authn';

/** A user as Go's %v prints upstream's *user.DefaultInfo: `&{name uid [groups] map[extra]}`. */
export function goUserString(user: UserInfo): string {
  const extra = Object.keys(user.extra ?? {})
    .sort()
    .map((key) => `${key}:[${user.extra![key]!.join(' ')}]`)
    .join(' ');
  return `&{${user.name} ${user.uid ?? ''} [${user.groups.join(' ')}] map[${extra}]}`;
}

export function paramAuthorization(catalog: ResourceCatalog, domain: string, authorizer: Authorizer): StoreCheck {
  const group = `admissionregistration.${domain}`;

  /** What `get` is asked on: the paramKind's group, version and resource where they resolve, else `*`. */
  const target = (kind: ParamKind | undefined): Pick<AccessAttributes, 'apiGroup' | 'apiVersion' | 'resource'> => {
    const gv = kind ? parseGroupVersion(kind.apiVersion ?? '') : undefined;
    if (!kind || !gv || typeof gv === 'string') return { apiGroup: '*', apiVersion: '*', resource: '*' };
    const served = catalog.all().find((s) => s.resolved.group === gv.group && s.resolved.version === gv.version && s.resolved.kind === kind.kind);
    return { apiGroup: gv.group, apiVersion: gv.version, resource: served?.resolved.resource ?? '*' };
  };

  const allowed = async (user: UserInfo, attributes: Omit<AccessAttributes, 'user' | 'verb' | 'isResourceRequest' | 'path' | 'subresource'>): Promise<boolean> => {
    const decision = await authorizer.authorize({ ...attributes, user, verb: 'get', isResourceRequest: true, subresource: '', path: '' });
    return decision.decision === 'Allow';
  };

  const check = async ({ resource, user, object, oldObject, name }: AdmissionAttributes & { user: UserInfo; object: KubeObject }): Promise<void> => {
    if (resource.resource === 'validatingadmissionpolicies') {
      const paramKind = (object as ValidatingAdmissionPolicy).spec?.paramKind;
      if (!paramKind) return;
      if (isDeepStrictEqual(paramKind, (oldObject as ValidatingAdmissionPolicy | undefined)?.spec?.paramKind)) return;
      if (await allowed(user, { ...target(paramKind), namespace: '*', name: '*' })) return;
      throw newInvalid(resource.groupKind, name, [
        forbidden(
          newPath('spec', 'paramKind'),
          `user ${goUserString(user)} must have "get" permission on all objects of the referenced paramKind (kind=${paramKind.kind ?? ''}, apiVersion=${paramKind.apiVersion ?? ''})`,
        ),
      ]);
    }
    if (resource.resource === 'validatingadmissionpolicybindings') {
      const spec = (object as ValidatingAdmissionPolicyBinding).spec;
      const paramRef = spec?.paramRef;
      if (!paramRef) return;
      const old = (oldObject as ValidatingAdmissionPolicyBinding | undefined)?.spec;
      if (old?.paramRef && isDeepStrictEqual(old.paramRef, paramRef) && old.policyName === spec?.policyName) return;
      let paramKind: ParamKind | undefined;
      try {
        const policy = (await catalog.store(group, resource.version, 'validatingadmissionpolicies').peek('', spec?.policyName ?? '')) as KubeObject as ValidatingAdmissionPolicy;
        paramKind = policy.spec?.paramKind;
      } catch {
        // No such policy (yet): every resource is asked for.
      }
      if (await allowed(user, { ...target(paramKind), namespace: paramRef.namespace ?? '', name: paramRef.name ?? '' })) return;
      throw newInvalid(resource.groupKind, name, [forbidden(newPath('spec', 'paramRef'), `user ${goUserString(user)} does not have "get" permission on the object referenced by paramRef`)]);
    }
  };

  // Returns at once for every other request.
  return (attributes) => {
    const { operation, resource, user, object } = attributes;
    if (resource.group !== group || (operation !== 'CREATE' && operation !== 'UPDATE') || !object) return;
    // The server's own writes and system:masters may (upstream's EscalationAllowed).
    if (!user || user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return;
    return check({ ...attributes, user, object });
  };
}
