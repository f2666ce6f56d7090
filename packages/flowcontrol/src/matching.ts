// Classification (upstream's rule.go): whether a FlowSchema's rules match a request, and the flow
// distinguisher. A rule matches when one of its subjects matches and, for a resource request, one
// of its resource rules, or, for any other request, one of its non-resource rules.
import type { UserInfo } from '@plat/apimachinery';
import { API_GROUP_ALL, NAME_ALL, NAMESPACE_EVERY, NON_RESOURCE_ALL, RESOURCE_ALL, VERB_ALL } from './types.js';
import type { FlowDistinguisherMethod, FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from './types.js';

/** What classification reads of a request: upstream's RequestInfo fields it uses. */
export interface RequestInfo {
  isResourceRequest: boolean;
  verb: string;
  /** The URL path; what a non-resource rule matches. */
  path: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface RequestDigest {
  user: UserInfo;
  requestInfo: RequestInfo;
}

export function matchesFlowSchema(digest: RequestDigest, fs: FlowSchema): boolean {
  return (fs.spec.rules ?? []).some((rule) => matchesPolicyRule(digest, rule));
}

export function matchesPolicyRule(digest: RequestDigest, rule: PolicyRulesWithSubjects): boolean {
  if (!rule.subjects.some((s) => matchesSubject(digest.user, s))) return false;
  const ri = digest.requestInfo;
  if (ri.isResourceRequest) return (rule.resourceRules ?? []).some((r) => matchesResourceRule(ri, r));
  return (rule.nonResourceRules ?? []).some((r) => matchesNonResourceRule(ri, r));
}

const SA_PREFIX = 'system:serviceaccount:';

function matchesSubject(user: UserInfo, subject: Subject): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user !== undefined && (subject.user.name === NAME_ALL || subject.user.name === user.name);
    case 'Group':
      return subject.group !== undefined && (subject.group.name === '*' || user.groups.includes(subject.group.name));
    case 'ServiceAccount': {
      const sa = subject.serviceAccount;
      if (!sa || !user.name.startsWith(SA_PREFIX)) return false;
      const rest = user.name.slice(SA_PREFIX.length);
      // name "*": any service account of the namespace.
      if (sa.name === NAME_ALL) return rest.startsWith(`${sa.namespace}:`);
      return rest === `${sa.namespace}:${sa.name}`;
    }
    default:
      return false;
  }
}

/** x is in the list, or the list is exactly the wildcard alone. */
function containsOrAll(x: string, list: string[] | undefined, wildcard: string): boolean {
  if (!list) return false;
  if (list.length === 1 && list[0] === wildcard) return true;
  return list.includes(x);
}

function matchesResourceRule(ri: RequestInfo, rule: ResourcePolicyRule): boolean {
  if (!containsOrAll(ri.verb, rule.verbs, VERB_ALL)) return false;
  const resource = ri.subresource === '' ? ri.resource : `${ri.resource}/${ri.subresource}`;
  if (!containsOrAll(resource, rule.resources, RESOURCE_ALL)) return false;
  if (!containsOrAll(ri.apiGroup, rule.apiGroups, API_GROUP_ALL)) return false;
  // No namespace: a cluster-scoped object, or a list across all namespaces.
  if (ri.namespace === '') return rule.clusterScope === true;
  return containsOrAll(ri.namespace, rule.namespaces, NAMESPACE_EVERY);
}

function matchesNonResourceRule(ri: RequestInfo, rule: NonResourcePolicyRule): boolean {
  if (!containsOrAll(ri.verb, rule.verbs, VERB_ALL)) return false;
  return rule.nonResourceURLs.some((url) => {
    if (url === NON_RESOURCE_ALL || url === ri.path) return true;
    // "/healthz/*" and "/healthz" alike match everything under "/healthz/".
    let prefix = url.endsWith('*') ? url.slice(0, -1) : url;
    if (!prefix.endsWith('/')) prefix += '/';
    return ri.path.startsWith(prefix);
  });
}

/** The flow distinguisher: the user's name, the request's namespace, or nothing. */
export function flowDistinguisher(digest: RequestDigest, method: FlowDistinguisherMethod | undefined): string {
  if (!method) return '';
  return method.type === 'ByUser' ? digest.user.name : digest.requestInfo.namespace;
}
