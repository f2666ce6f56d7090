// The values a policy's expressions read for one request (upstream's filter.go activation):
// object and oldObject as unstructured data, request as upstream's AdmissionRequest (made by the
// admission chain's request view, which webhooks read too), namespaceObject without managedFields
// and owners, params, and the authorizer bound to the requesting user.
import type { AccessAttributes, AccessDecision, UserInfo } from '@plat/apimachinery';
import type { KubeObject } from '@plat/registry';
import { AuthorizerValue, ResourceCheckValue, unstructuredValue, valueOf } from '@plat/cel';
import { AUTHORIZER, NAMESPACE_OBJECT, OBJECT, OLD_OBJECT, PARAMS, REQUEST, REQUEST_RESOURCE_AUTHORIZER, namespaceSchema } from './policy-cel.js';
import type { Activation } from './policy-evaluation.js';
import type { GroupVersionResource } from './matching.js';

/** What the expressions' authorizer asks: the server's decisions, at once. */
export interface PolicyAuthorizer {
  authorize(attributes: AccessAttributes): AccessDecision;
}

export interface ActivationInput {
  /** The objects as the resource the policy matched the request as serves them. */
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  /** upstream's AdmissionRequest without its objects and uid (CreateAdmissionRequest), as ToUnstructured writes it. */
  request: Record<string, unknown>;
  /** The request's own resource, subresource, namespace and name: what `authorizer.requestResource` checks. */
  requestResource: GroupVersionResource;
  subresource: string;
  namespace: string;
  name: string;
  user: UserInfo;
  namespaceObject: KubeObject | undefined;
  authorizer: PolicyAuthorizer;
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
    [REQUEST]: unstructuredValue(input.request),
    [NAMESPACE_OBJECT]: input.namespaceObject ? namespaceValue(input.namespaceObject) : null,
    [AUTHORIZER]: authorizer,
    [REQUEST_RESOURCE_AUTHORIZER]: new ResourceCheckValue(authorizer, group, resource, input.subresource, input.namespace, input.name),
  };
}

/** The activation with `params` (null where a binding names none). */
export function withParams(activation: Activation, param: KubeObject | null): Activation {
  return { ...activation, [PARAMS]: param === null ? null : unstructuredValue(param) };
}
