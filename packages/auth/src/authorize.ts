// Decisions on one request: upstream's RBAC authorizer, its privileged-group authorizer, and the 403 message a refusal carries.
import { goQuote } from '@plat/apimachinery';
import { SYSTEM_MASTERS } from './domain.js';
import { aggregateMessage } from './go-text.js';
import type { RbacIndex } from './rbac-index.js';
import type { AccessAttributes, AccessDecision } from '@plat/apimachinery';

/**
 * Upstream's RBACAuthorizer.Authorize. Allowed: reason `RBAC: allowed by <source>` for the first
 * rule that allows. Otherwise no opinion; when roleRefs could not be resolved (or subjects naming
 * the user were malformed) the reason is `RBAC: <errors>` (upstream's aggregate text) and
 * evaluationError carries the same errors without the prefix. Upstream returns these errors in the reason only, with a nil error, because the
 * authorization filter answers 500 to a non-nil error: a caller must not treat evaluationError as
 * a failure of the request, only copy it where a review reports it.
 */
export function authorize(index: RbacIndex, attributes: AccessAttributes): AccessDecision {
  const { source, errors } = index.findAllowingRule(attributes);
  if (source) return { decision: 'Allow', reason: `RBAC: allowed by ${source.toString()}` };
  if (!errors.length) return { decision: 'NoOpinion', reason: '' };
  const evaluationError = aggregateMessage(errors);
  return { decision: 'NoOpinion', reason: `RBAC: ${evaluationError}`, evaluationError };
}

/**
 * Upstream's privileged-group authorizer (authorizerfactory.NewPrivilegedGroups), which
 * kube-apiserver puts before every other: a member of a privileged group (system:masters) is
 * allowed anything, with an empty reason; anyone else gets no opinion.
 */
export function privilegedGroupAuthorizer(
  attributes: AccessAttributes,
  privilegedGroups: readonly string[] = [SYSTEM_MASTERS],
): AccessDecision {
  const privileged = attributes.user.groups.some((group) => privilegedGroups.includes(group));
  return { decision: privileged ? 'Allow' : 'NoOpinion', reason: '' };
}

// Upstream keeps error text from looking like HTML; quotes stay.
const sanitize = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * What a refused request's 403 Status says: apierrors.NewForbidden over responsewriters'
 * forbiddenMessage, with the authorizers' reason appended after ": " when there is one.
 *
 *   serviceaccounts is forbidden: User "alice" cannot list resource "serviceaccounts" in API group "" in the namespace "default"
 *   nodes "n1" is forbidden: User "alice" cannot get resource "nodes" in API group "" at the cluster scope
 *   pods "p" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "ns"
 *   forbidden: User "alice" cannot get path "/metrics"
 *
 * The Status's details are { group: apiGroup, kind: resource, name } (omitting empty values).
 */
export function forbiddenMessage(attributes: AccessAttributes, reason = ''): string {
  const username = goQuote(attributes.user?.name ?? '');
  const { verb, apiGroup, resource, subresource, namespace, name } = attributes;
  let detail: string;
  if (!attributes.isResourceRequest) {
    detail = `User ${username} cannot ${verb} path ${goQuote(attributes.path)}`;
  } else {
    const target = subresource ? `${resource}/${subresource}` : resource;
    const scope = namespace ? `in the namespace ${goQuote(namespace)}` : 'at the cluster scope';
    detail = `User ${username} cannot ${verb} resource ${goQuote(target)} in API group ${goQuote(apiGroup)} ${scope}`;
  }
  const error = reason ? `${sanitize(detail)}: ${reason}` : sanitize(detail);
  // NewForbidden's qualified resource has no subresource; non-resource requests have none at all.
  const groupResource = attributes.isResourceRequest ? resource : '';
  const group = attributes.isResourceRequest ? apiGroup : '';
  if (!groupResource && !group) return `forbidden: ${error}`;
  const qualified = group ? `${groupResource}.${group}` : groupResource;
  return name ? `${qualified} ${goQuote(name)} is forbidden: ${error}` : `${qualified} is forbidden: ${error}`;
}
