// The rules a user has in a namespace, as a SelfSubjectRulesReview's status reports them (upstream's RBACAuthorizer.RulesFor).
import { aggregateMessage } from './go-text.js';
import type { RbacIndex } from './rbac-index.js';
import type { AccessRules, ResourceRule, UserInfo } from '@plat/apimachinery';

const nonEmpty = (list: string[] | undefined): string[] | undefined => (list?.length ? [...list] : undefined);

/**
 * One ResourceRule per rule naming resources and one NonResourceRule per rule naming URLs, in
 * visit order, uncompacted and possibly duplicated as upstream (the spec allows both). RBAC
 * always reports complete (incomplete false), even when a roleRef could not be resolved: that
 * error is evaluationError, in upstream's aggregate text. The privileged-group authorizer resolves
 * no rules, so a system:masters member sees what their bindings grant (cluster-admin by default).
 */
export function rulesReview(index: RbacIndex, user: UserInfo, namespace: string): AccessRules {
  const { rules, errors } = index.rulesFor(user, namespace);
  const status: AccessRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
  for (const rule of rules) {
    if (rule.resources?.length) {
      const resourceRule: ResourceRule = { verbs: [...(rule.verbs ?? [])] };
      const apiGroups = nonEmpty(rule.apiGroups);
      const resourceNames = nonEmpty(rule.resourceNames);
      if (apiGroups) resourceRule.apiGroups = apiGroups;
      resourceRule.resources = [...rule.resources];
      if (resourceNames) resourceRule.resourceNames = resourceNames;
      status.resourceRules.push(resourceRule);
    }
    if (rule.nonResourceURLs?.length) {
      status.nonResourceRules.push({ verbs: [...(rule.verbs ?? [])], nonResourceURLs: [...rule.nonResourceURLs] });
    }
  }
  if (errors.length) status.evaluationError = aggregateMessage(errors);
  return status;
}
