// ClusterRole (rbac.authorization.{domain}/v1, cluster-scoped): permissions across the cluster or on
// non-resource URLs, optionally aggregated from other ClusterRoles by label.
import {
  invalid,
  labelSelectorFromObject,
  nameIsPathSegment,
  newPath,
  required,
  SelectorParseError,
  validateLabelSelectorObject,
  type FieldError,
  type PolicyRule,
} from '@plat/apimachinery';
import type { JSONSchema, KubeObject, ResourceDefinition } from '@plat/registry';
import { labelSelectorSchema, type LabelSelector } from '../common/label-selector.js';
import { kindSchema } from '../common/object-meta-schema.js';
import { policyRulesSchema, validatePolicyRules } from '../common/policy-rule.js';
import { atomicList, objectSchema } from '../common/schema.js';
import { allVerbs } from '../common/verbs.js';

export interface AggregationRule {
  clusterRoleSelectors?: LabelSelector[];
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}

const aggregationRuleSchema: JSONSchema = objectSchema('How to build the rules of a ClusterRole from other ClusterRoles.', {
  clusterRoleSelectors: atomicList(
    "Selectors of the ClusterRoles whose rules are combined into this one's rules; if any selector matches, the role's rules are added.",
    labelSelectorSchema,
  ),
});

function validateClusterRole(role: ClusterRole): FieldError[] {
  const errors = validatePolicyRules(role.rules, false, newPath('rules'));
  if (role.aggregationRule) {
    const path = newPath('aggregationRule', 'clusterRoleSelectors');
    const selectors = role.aggregationRule.clusterRoleSelectors ?? [];
    if (selectors.length === 0) {
      errors.push(required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    }
    selectors.forEach((selector, i) => {
      errors.push(...validateLabelSelectorObject(selector, path.index(i)));
      if (!convertsToSelector(selector)) errors.push(invalid(path.index(i), 'null', 'invalid label selector.'));
    });
  }
  return errors;
}

/**
 * Whether upstream's LabelSelectorAsSelector accepts the selector. Upstream validates a ClusterRole's
 * selectors and then also converts each one, reporting a conversion failure once more on the
 * selector itself: its value is the nil selector the failed conversion returned, printed "null".
 */
function convertsToSelector(selector: LabelSelector): boolean {
  try {
    labelSelectorFromObject(selector);
    return true;
  } catch (error) {
    if (error instanceof SelectorParseError) return false;
    throw error;
  }
}

export const clusterRoleDefinition = {
  group: 'rbac.authorization.{domain}',
  version: 'v1',
  kind: 'ClusterRole',
  resource: 'clusterroles',
  singularName: 'clusterrole',
  namespaced: false,
  verbs: allVerbs,
  schema: kindSchema(
    'A cluster-level, logical grouping of PolicyRules, referenced as a unit by a RoleBinding or ClusterRoleBinding.',
    {
      rules: policyRulesSchema(
        'All the PolicyRules of this ClusterRole. With an aggregationRule they are maintained by a controller, which overwrites direct changes.',
      ),
      aggregationRule: aggregationRuleSchema,
    },
  ),
  validateName: nameIsPathSegment,
  strategy: {
    validate: validateClusterRole,
    validateUpdate: validateClusterRole,
  },
  // No columns of its own: Name and Created At, as upstream.
  allowCreateOnUpdate: true,
  protobuf: { message: 'k8s.io.api.rbac.v1.ClusterRole' },
} satisfies ResourceDefinition<ClusterRole>;
