// Which requests a policy's matchConstraints (or a binding's matchResources) select, as upstream's
// validatingadmissionpolicy/matching with the webhook predicates it uses: the namespace selector
// (cluster-scoped requests always pass it, a Namespace is judged by its own labels), the object
// selector (new or old object), excluded rules first, then the resource rules (scope, operation,
// group, version, resource and subresource, names), and with matchPolicy Equivalent the same
// resource served through another group or version.
import { isStatusError, labelSelectorFromObject, newInternalError, type LabelSelector } from '@plat/apimachinery';
import type { MatchResources, NamedRuleWithOperations } from './types.js';
import type { KubeObject, Operation } from '@plat/registry';

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A resource the request's resource is also served as (same storage), with its kind. */
export interface EquivalentResource extends GroupVersionResource {
  kind: GroupVersionKind;
}

/** What matching looks at of a request. */
export interface MatchRequest {
  operation: Operation;
  resource: GroupVersionResource;
  kind: GroupVersionKind;
  subresource: string;
  /** The request's namespace; for a Namespace object, its own name (as upstream's attributes). */
  namespace: string;
  name: string;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  /** The labels of the request's namespace (throws a StatusError when it cannot be read). */
  namespaceLabels(): Promise<Readonly<Record<string, string>> | undefined>;
  /** The other resources serving the same objects, for matchPolicy Equivalent. */
  equivalents(): readonly EquivalentResource[];
}

/** A MatchResources with its selectors parsed once (a selector that does not parse is kept as its error). */
export interface CompiledMatch {
  namespaceSelector: LabelSelector | Error;
  objectSelector: LabelSelector | Error;
  resourceRules: readonly NamedRuleWithOperations[];
  excludeResourceRules: readonly NamedRuleWithOperations[];
  matchPolicy: string | undefined;
}

function parseSelector(selector: MatchResources['namespaceSelector']): LabelSelector | Error {
  try {
    // Absent is the empty selector here: upstream's defaults set one, and it matches everything.
    return labelSelectorFromObject(selector ?? {});
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

export function compileMatch(match: MatchResources): CompiledMatch {
  return {
    namespaceSelector: parseSelector(match.namespaceSelector),
    objectSelector: parseSelector(match.objectSelector),
    resourceRules: match.resourceRules ?? [],
    excludeResourceRules: match.excludeResourceRules ?? [],
    matchPolicy: match.matchPolicy,
  };
}

export type MatchResult = { matched: false } | { matched: true; resource: GroupVersionResource; kind: GroupVersionKind };

const NO_MATCH: MatchResult = { matched: false };

const exactOrWildcard = (items: readonly string[] | undefined, requested: string): boolean => !!items?.some((item) => item === '*' || item === requested);

const isNamespaceResource = (r: GroupVersionResource): boolean => r.group === '' && r.version === 'v1' && r.resource === 'namespaces';

/** One rule against the request seen as `resource` (upstream's rules.Matcher). */
export function ruleMatches(rule: NamedRuleWithOperations, request: MatchRequest, resource: GroupVersionResource): boolean {
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced' && (isNamespaceResource(resource) || request.namespace === '')) return false;
  if (scope === 'Cluster' && !(isNamespaceResource(resource) || request.namespace === '')) return false;
  if (scope !== '*' && scope !== 'Namespaced' && scope !== 'Cluster') return false;
  if (!rule.operations?.some((op) => op === '*' || op === request.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, resource.group) || !exactOrWildcard(rule.apiVersions, resource.version)) return false;
  return !!rule.resources?.some((resSub) => {
    const slash = resSub.indexOf('/');
    const res = slash < 0 ? resSub : resSub.slice(0, slash);
    const sub = slash < 0 ? '' : resSub.slice(slash + 1);
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === request.subresource);
  });
}

const namesMatch = (rule: NamedRuleWithOperations, name: string): boolean => !rule.resourceNames?.length || rule.resourceNames.includes(name);

/** Upstream's matchesResourceRules: the request's own resource, then (Equivalent) the others. */
function matchRules(rules: readonly NamedRuleWithOperations[], matchPolicy: string | undefined, request: MatchRequest): MatchResult {
  for (const rule of rules) {
    if (ruleMatches(rule, request, request.resource) && namesMatch(rule, request.name)) return { matched: true, resource: request.resource, kind: request.kind };
  }
  if (matchPolicy === undefined || matchPolicy === 'Exact') return NO_MATCH;
  const { group, version, resource } = request.resource;
  for (const rule of rules) {
    for (const equivalent of request.equivalents()) {
      if (equivalent.group === group && equivalent.version === version && equivalent.resource === resource) continue;
      if (ruleMatches(rule, request, equivalent) && namesMatch(rule, request.name)) {
        return { matched: true, resource: { group: equivalent.group, version: equivalent.version, resource: equivalent.resource }, kind: equivalent.kind };
      }
    }
  }
  return NO_MATCH;
}

async function matchNamespaceSelector(criteria: CompiledMatch, request: MatchRequest): Promise<boolean | Error> {
  // A cluster-scoped request (other than a Namespace's) is never exempted.
  if (request.namespace === '' && request.resource.resource !== 'namespaces') return true;
  const selector = criteria.namespaceSelector;
  if (selector instanceof Error) return newInternalError(selector);
  if (selector.empty) return true;
  // A Namespace created or updated is judged by its new labels (the cache has not seen them yet).
  if (request.resource.resource === 'namespaces' && request.subresource === '' && (request.operation === 'CREATE' || request.operation === 'UPDATE')) {
    return selector.matches(request.object?.metadata.labels);
  }
  try {
    return selector.matches(await request.namespaceLabels());
  } catch (error) {
    if (isStatusError(error) && error.code === 404) return error;
    return newInternalError(error);
  }
}

function matchObjectSelector(criteria: CompiledMatch, request: MatchRequest): boolean | Error {
  const selector = criteria.objectSelector;
  if (selector instanceof Error) return newInternalError(selector);
  if (selector.empty) return true;
  const matches = (object: KubeObject | undefined): boolean => !!object && selector.matches(object.metadata.labels);
  return matches(request.object) || matches(request.oldObject);
}

/**
 * Whether the criteria select the request, and as which resource and kind (its own, or with
 * matchPolicy Equivalent another it is also served as). Throws a StatusError where a selector cannot
 * be judged, but only when the rules would select the request: a policy that does not apply never
 * fails a request.
 */
export async function matches(criteria: CompiledMatch, request: MatchRequest): Promise<MatchResult> {
  const namespace = await matchNamespaceSelector(criteria, request);
  if (namespace === false) return NO_MATCH;
  const object = matchObjectSelector(criteria, request);
  if (object === false) return NO_MATCH;
  if (matchRules(criteria.excludeResourceRules, criteria.matchPolicy, request).matched) return NO_MATCH;
  const result = criteria.resourceRules.length
    ? matchRules(criteria.resourceRules, criteria.matchPolicy, request)
    : ({ matched: true, resource: request.resource, kind: request.kind } as const);
  if (!result.matched) return NO_MATCH;
  if (namespace instanceof Error) throw namespace;
  if (object instanceof Error) throw object;
  return result;
}
