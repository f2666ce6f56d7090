// PolicyRule: one permission of a Role or ClusterRole, its schema and its validation.
import { invalid, required, type FieldError, type FieldPath, type PolicyRule } from '@plat/apimachinery';
import type { JSONSchema } from '@plat/registry';
import { atomicList, atomicStringList, objectSchema } from './schema.js';

const policyRuleSchema: JSONSchema = objectSchema(
  'The actions a rule allows on resources or on non-resource URLs.',
  {
    verbs: atomicStringList('Verbs the rule allows; "*" allows all.'),
    apiGroups: atomicStringList(
      'API groups of the resources; "" is the core group and "*" all groups. Any listed resource in any listed group is allowed.',
    ),
    resources: atomicStringList('Resources the rule applies to; "*" all resources of the groups, "*/foo" the subresource foo of all.'),
    resourceNames: atomicStringList('Optional allow-list of object names; empty means all.'),
    nonResourceURLs: atomicStringList(
      'Partial URLs the rule applies to; "*" only as the whole last segment. Only in a ClusterRole bound by a ClusterRoleBinding; a rule applies to resources or to non-resource URLs, not both.',
    ),
  },
  { required: ['verbs'] },
);

export const policyRulesSchema = (description: string): JSONSchema => atomicList(description, policyRuleSchema);

const nonEmpty = (list: readonly unknown[] | undefined): boolean => (list?.length ?? 0) > 0;

/**
 * Problems with one rule. `namespaced` rules (a Role's) cannot name non-resource URLs. Like upstream,
 * the placement of "*" in a URL is not checked here.
 */
function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!nonEmpty(rule.verbs)) errors.push(required(path.child('verbs'), 'verbs must contain at least one value'));

  if (nonEmpty(rule.nonResourceURLs)) {
    if (namespaced) {
      errors.push(invalid(path.child('nonResourceURLs'), rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    }
    if (nonEmpty(rule.apiGroups) || nonEmpty(rule.resources) || nonEmpty(rule.resourceNames)) {
      errors.push(
        invalid(path.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'),
      );
    }
    return errors;
  }

  if (!nonEmpty(rule.apiGroups)) errors.push(required(path.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (!nonEmpty(rule.resources)) errors.push(required(path.child('resources'), 'resource rules must supply at least one resource'));
  return errors;
}

export function validatePolicyRules(rules: readonly PolicyRule[] | undefined, namespaced: boolean, path: FieldPath): FieldError[] {
  return (rules ?? []).flatMap((rule, i) => validatePolicyRule(rule, namespaced, path.index(i)));
}
