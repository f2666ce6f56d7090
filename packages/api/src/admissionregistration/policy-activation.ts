// The values a policy's expressions read for one request (upstream's filter.go activation):
// object and oldObject as unstructured data, request as upstream's AdmissionRequest (its empty
// fields left out, as ToUnstructured leaves them), namespaceObject without managedFields and
// owners, params, and the authorizer bound to the requesting user.
import type { AccessAttributes, AccessDecision, UserInfo } from '@plat/apimachinery';
import type { KubeObject, Operation } from '@plat/registry';
import { AuthorizerValue, ResourceCheckValue, unstructuredValue, valueOf } from '@plat/cel';
import { AUTHORIZER, NAMESPACE_OBJECT, OBJECT, OLD_OBJECT, PARAMS, REQUEST, REQUEST_RESOURCE_AUTHORIZER, namespaceSchema } from './policy-cel.js';
import type { Activation } from './policy-evaluation.js';
import type { GroupVersionKind, GroupVersionResource } from './matching.js';

/** What the expressions' authorizer asks: the server's decisions, at once. */
export interface PolicyAuthorizer {
  authorize(attributes: AccessAttributes): AccessDecision;
}

export interface ActivationInput {
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  /** The resource and kind the policy matched the request as (its own, or an equivalent). */
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  /** The request's own. */
  requestResource: GroupVersionResource;
  requestKind: GroupVersionKind;
  subresource: string;
  name: string;
  namespace: string;
  operation: Operation;
  user: UserInfo;
  dryRun: boolean;
  options: Readonly<Record<string, unknown>> | undefined;
  namespaceObject: KubeObject | undefined;
  authorizer: PolicyAuthorizer;
}

/** upstream's CreateAdmissionRequest, as ToUnstructured writes it (empty fields left out). */
function requestJSON(input: ActivationInput): Record<string, unknown> {
  const { user } = input;
  const userInfo: Record<string, unknown> = {};
  if (user.name) userInfo.username = user.name;
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups.length) userInfo.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length) userInfo.extra = user.extra;
  return {
    kind: input.kind,
    resource: input.resource,
    ...(input.subresource && { subResource: input.subresource }),
    requestKind: input.requestKind,
    requestResource: input.requestResource,
    ...(input.subresource && { requestSubResource: input.subresource }),
    ...(input.name && { name: input.name }),
    ...(input.namespace && { namespace: input.namespace }),
    operation: input.operation,
    userInfo,
    dryRun: input.dryRun,
    ...(input.options && { options: input.options }),
  };
}

/** The namespace as policies see it (upstream's CreateNamespaceObject): without managedFields and owners. */
function namespaceValue(namespace: KubeObject) {
  const m = namespace.metadata;
  const metadata: Record<string, unknown> = {};
  for (const key of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'] as const) {
    if (m[key] !== undefined) metadata[key] = m[key];
  }
  const { spec, status } = namespace as { spec?: unknown; status?: unknown };
  return valueOf({ metadata, ...(spec !== undefined && { spec }), ...(status !== undefined && { status }) }, namespaceSchema);
}

/** The activation of a request, params aside (see withParams). */
export function policyActivation(input: ActivationInput): Activation {
  const authorizer = new AuthorizerValue(input.user, input.authorizer);
  const { group, resource } = input.requestResource;
  return {
    [OBJECT]: input.object ? unstructuredValue(input.object) : null,
    [OLD_OBJECT]: input.oldObject ? unstructuredValue(input.oldObject) : null,
    [REQUEST]: unstructuredValue(requestJSON(input)),
    [NAMESPACE_OBJECT]: input.namespaceObject ? namespaceValue(input.namespaceObject) : null,
    [AUTHORIZER]: authorizer,
    [REQUEST_RESOURCE_AUTHORIZER]: new ResourceCheckValue(authorizer, group, resource, input.subresource, input.namespace, input.name),
  };
}

/** The activation with `params` (null where a binding names none). */
export function withParams(activation: Activation, param: KubeObject | null): Activation {
  return { ...activation, [PARAMS]: param === null ? null : unstructuredValue(param) };
}
