// Escalation prevention: whether a user holds every permission a Role or binding grants (upstream's ConfirmNoEscalation).
import { goQuote } from '@plat/apimachinery';
import { rbacGroup, SYSTEM_MASTERS } from './domain.js';
import { aggregateMessage, goQuoteList } from './go-text.js';
import { trimTrailingStars } from './rule-matching.js';
import type { RbacIndex } from './rbac-index.js';
import type { AccessAttributes, PolicyRule, RoleRef, UserInfo } from '@plat/apimachinery';

/** Upstream's BreakdownRule: one rule per (group, resource, verb[, name]) and per (URL, verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const pieces: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) {
            pieces.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
          }
        } else {
          pieces.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) pieces.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return pieces;
}

const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean =>
  (wanted ?? []).every((value) => (set ?? []).includes(value));

function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  const owned = owner ?? [];
  if (owned.includes('*') || hasAll(owned, wanted)) return true;
  return (wanted ?? []).every((path) => {
    if (owned.includes(path)) return true;
    const slash = path.indexOf('/');
    // Not a subresource: only an exact match would have done.
    return slash >= 0 && owned.includes(`*/${path.slice(slash + 1)}`);
  });
}

const urlCovers = (owner: string, path: string): boolean =>
  owner === path || (owner.endsWith('*') && path.startsWith(trimTrailingStars(owner)));

const urlsCover = (owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean =>
  (wanted ?? []).every((path) => (owner ?? []).some((o) => urlCovers(o, path)));

/** Upstream's ruleCovers: whether one owner rule covers a broken-down piece. */
function ruleCovers(owner: PolicyRule, piece: PolicyRule): boolean {
  const verbs = (owner.verbs ?? []).includes('*') || hasAll(owner.verbs, piece.verbs);
  const groups = (owner.apiGroups ?? []).includes('*') || hasAll(owner.apiGroups, piece.apiGroups);
  const ownerNames = owner.resourceNames ?? [];
  // An owner limited to names covers only pieces limited to those names.
  const names = piece.resourceNames?.length ? !ownerNames.length || hasAll(ownerNames, piece.resourceNames) : !ownerNames.length;
  return verbs && groups && resourcesCover(owner.resources, piece.resources) && names && urlsCover(owner.nonResourceURLs, piece.nonResourceURLs);
}

/**
 * Upstream's Covers: whether the owner's rules cover the servant's, and the broken-down pieces
 * they do not. Each piece is checked against one owner rule at a time.
 */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing = servantRules.flatMap(breakdownRule).filter((piece) => !ownerRules.some((owner) => ruleCovers(owner, piece)));
  return { covered: missing.length === 0, missing };
}

/** A rule with one group, one resource, at most one name and nothing else: pieces that differ only by verb merge. */
function simpleKey(rule: PolicyRule): string | undefined {
  if ((rule.resourceNames?.length ?? 0) > 1 || rule.nonResourceURLs?.length) return undefined;
  if (rule.apiGroups?.length !== 1 || rule.resources?.length !== 1) return undefined;
  const name = rule.resourceNames?.length ? `\u0001${rule.resourceNames[0]}` : '';
  return JSON.stringify([rule.apiGroups[0], rule.resources[0], name]);
}

/** Upstream's CompactRules: simple rules that differ only by verb become one rule with all their verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const key = simpleKey(rule);
    if (key === undefined) {
      compacted.push(rule);
      continue;
    }
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...(rule.verbs ?? [])];
    else simple.set(key, structuredClone(rule));
  }
  return [...compacted, ...simple.values()];
}

/** Upstream's CompactString, as escalation messages list rules: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuoteList(rule.resourceNames)}`);
  if (rule.verbs?.length) parts.push(`Verbs:${goQuoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

export type EscalationCheck = { ok: true } | { ok: false; missing: PolicyRule[]; message: string };

/**
 * Upstream's ConfirmNoEscalation: the user's rules in `namespace` (the request's: "" for a
 * ClusterRole or ClusterRoleBinding) must cover `rules`. When they do not, `missing` holds the
 * uncovered pieces, compacted and sorted as the message lists them:
 *
 *   user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
 *   {APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}
 *
 * followed by `; resolution errors: [<errors>]` when some of the user's roleRefs did not resolve.
 * The caller answers 403 with apierrors.NewForbidden(<group resource>, <name>, message):
 * `roles.rbac.authorization.plat.io "r" is forbidden: user "alice" ...`.
 */
export function confirmNoEscalation(index: RbacIndex, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): EscalationCheck {
  const owner = index.rulesFor(user, namespace);
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return { ok: true };
  const described = new Map<string, PolicyRule>();
  for (const rule of compactRules(missing)) {
    const text = compactString(rule);
    if (!described.has(text)) described.set(text, rule);
  }
  const lines = [...described.keys()].sort();
  const who = `user ${goQuote(user.name)} (groups=${goQuoteList(user.groups)})`;
  let message = `${who} is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  // Upstream formats a []error holding the one aggregate error with %v.
  if (owner.errors.length) message += `; resolution errors: [${aggregateMessage(owner.errors)}]`;
  return { ok: false, missing: lines.map((line) => described.get(line)!), message };
}

/** `*` on every resource of every group and on every URL: what cluster-admin holds. */
export const fullAuthority: readonly PolicyRule[] = Object.freeze([
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
]);

/**
 * Upstream's extra check on a ClusterRole whose new (or, on update, old) object has an
 * aggregationRule, after confirmNoEscalation of its rules: a selector can gather anything, so the
 * user must hold fullAuthority. The caller answers NewForbidden("clusterroles.<rbac group>", name, message).
 * Skipped, like the others, by escalationAllowed or the escalate verb.
 */
export function confirmAggregationRuleAllowed(index: RbacIndex, user: UserInfo, namespace: string): EscalationCheck {
  const check = confirmNoEscalation(index, user, namespace, fullAuthority);
  return check.ok ? check : { ...check, message: 'must have cluster-admin privileges to use the aggregationRule' };
}

/**
 * Upstream's EscalationAllowed: a member of system:masters may create any Role or binding without
 * the checks (the API server's own loopback client is one).
 */
export const escalationAllowed = (user: UserInfo): boolean => user.groups.includes(SYSTEM_MASTERS);

/** What a Role or ClusterRole write request is: the parts of upstream's RequestInfo the escalate check reads. */
export interface RoleRequest {
  isResourceRequest: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  name: string;
}

/**
 * The attributes upstream's RoleEscalationAuthorized authorizes before skipping the escalation
 * check on a Role or ClusterRole create or update: verb "escalate" on the request's own resource
 * (group, "roles" or "clusterroles", namespace, name) with apiVersion "*". Undefined when upstream
 * does not ask (not a resource request, or not a role resource of the RBAC group): then only
 * confirmNoEscalation decides.
 */
export function escalateCheckAttributes(domain: string, user: UserInfo, request: RoleRequest): AccessAttributes | undefined {
  if (!request.isResourceRequest || request.apiGroup !== rbacGroup(domain)) return undefined;
  if (request.resource !== 'roles' && request.resource !== 'clusterroles') return undefined;
  return {
    user,
    verb: 'escalate',
    apiGroup: request.apiGroup,
    apiVersion: '*',
    resource: request.resource,
    subresource: '',
    name: request.name,
    namespace: request.namespace,
    isResourceRequest: true,
    path: '',
  };
}

/**
 * The attributes upstream's BindingAuthorized authorizes before skipping the escalation check on
 * a binding create or update: verb "bind" on the referenced role (the roleRef's apiGroup,
 * "clusterroles" or "roles", its name) in the binding's namespace ("" for a ClusterRoleBinding),
 * apiVersion "*". Undefined for another roleRef kind (upstream then refuses to skip). Without
 * `bind`, the binding's role rules (index.roleReferenceRules(roleRef, namespace); an error there
 * is returned to the client as is) must pass confirmNoEscalation.
 */
export function bindCheckAttributes(user: UserInfo, roleRef: RoleRef, bindingNamespace: string): AccessAttributes | undefined {
  const resource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : undefined;
  if (!resource) return undefined;
  return {
    user,
    verb: 'bind',
    apiGroup: roleRef.apiGroup,
    apiVersion: '*',
    resource,
    subresource: '',
    name: roleRef.name,
    namespace: bindingNamespace,
    isResourceRequest: true,
    path: '',
  };
}
