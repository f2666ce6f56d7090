// Authorization without I/O: the RBAC index and authorizer, forbidden messages, rules reviews, escalation checks and the bootstrap policy.
export type {
  ClusterRole,
  ClusterRoleBinding,
  LabelSelectorShape,
  RbacKind,
  RbacObjectMeta,
  RbacObjects,
  Role,
  RoleBinding,
} from './types.js';
export {
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
  SYSTEM_MASTERS,
  SYSTEM_NODES,
  apiGroupFor,
  controllerManagerUser,
  rbacGroup,
  serviceAccountUsername,
  systemPrefix,
  wellKnownPrefix,
} from './domain.js';
export {
  apiGroupMatches,
  nonResourceURLMatches,
  resourceMatches,
  resourceNameMatches,
  ruleAllows,
  verbMatches,
} from './rule-matching.js';
export { RbacIndex, RuleSource, type RbacIndexOptions, type RoleReferenceResult, type RuleVisitor } from './rbac-index.js';
export { authorize, forbiddenMessage, privilegedGroupAuthorizer } from './authorize.js';
export { rulesReview } from './rules-review.js';
export {
  bindCheckAttributes,
  breakdownRule,
  compactRules,
  compactString,
  confirmAggregationRuleAllowed,
  confirmNoEscalation,
  covers,
  escalateCheckAttributes,
  escalationAllowed,
  fullAuthority,
  type EscalationCheck,
  type RoleRequest,
} from './escalation.js';
export { aggregateToLabel, autoupdateAnnotation, bootstrapPolicy, bootstrappingLabel } from './bootstrap-policy.js';
export { aggregateClusterRole, ruleEquals } from './aggregation.js';
