// Role (rbac.authorization.{domain}/v1, namespaced): a set of permissions within one namespace.
import { nameIsPathSegment, newPath, type PolicyRule } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { policyRulesSchema, validatePolicyRules } from '../common/policy-rule.js';
import { allVerbs } from '../common/verbs.js';

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export const roleDefinition = {
  group: 'rbac.authorization.{domain}',
  version: 'v1',
  kind: 'Role',
  resource: 'roles',
  singularName: 'role',
  namespaced: true,
  verbs: allVerbs,
  schema: kindSchema('A namespaced, logical grouping of PolicyRules, referenced as a unit by a RoleBinding.', {
    rules: policyRulesSchema('All the PolicyRules of this Role.'),
  }),
  // Upstream's ValidateRBACName: any name usable as a path segment.
  validateName: nameIsPathSegment,
  strategy: {
    validate: (role) => validatePolicyRules(role.rules, true, newPath('rules')),
    validateUpdate: (role) => validatePolicyRules(role.rules, true, newPath('rules')),
  },
  // No columns of its own: Name and Created At, as upstream.
  allowCreateOnUpdate: true,
  protobuf: { message: 'k8s.io.api.rbac.v1.Role' },
} satisfies ResourceDefinition<Role>;
