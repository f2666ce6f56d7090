// The built-in kinds, one file each, and the list the apiserver registers: one line per kind.
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { leaseDefinition } from './coordination/lease.js';
import { limitRangeDefinition } from './core/limit-range.js';
import { eventDefinition } from './core/event.js';
import { eventsAPIEventDefinition } from './events/event.js';
import { namespaceDefinition } from './core/namespace.js';
import { nodeDefinition } from './core/node.js';
import { serviceAccountDefinition } from './core/service-account.js';
import { configMapDefinition } from './core/config-map.js';
import { secretDefinition } from './core/secret.js';
import { ipAddressDefinition } from './networking/ip-address.js';
import { clusterRoleBindingDefinition } from './rbac/cluster-role-binding.js';
import { clusterRoleDefinition } from './rbac/cluster-role.js';
import { roleBindingDefinition } from './rbac/role-binding.js';
import { roleDefinition } from './rbac/role.js';
import { localSubjectAccessReviewDefinition } from './authorization/local-subject-access-review.js';
import { selfSubjectAccessReviewDefinition } from './authorization/self-subject-access-review.js';
import { selfSubjectRulesReviewDefinition } from './authorization/self-subject-rules-review.js';
import { subjectAccessReviewDefinition } from './authorization/subject-access-review.js';
import { selfSubjectReviewDefinition } from './authentication/self-subject-review.js';
import { tokenRequestDefinition } from './authentication/token-request.js';
import { tokenReviewDefinition } from './authentication/token-review.js';
import { customResourceDefinitionDefinition } from './apiextensions/custom-resource-definition.js';
import { validatingAdmissionPolicyDefinition } from './admissionregistration/validating-admission-policy.js';
import { validatingAdmissionPolicyBindingDefinition } from './admissionregistration/validating-admission-policy-binding.js';

export * from './core/namespace.js';
export * from './core/node.js';
export * from './core/service-account.js';
export { configMapDefinition, type ConfigMap } from './core/config-map.js';
export { secretDefinition, secretTypes, type Secret } from './core/secret.js';
export * from './core/limit-range.js';
export * from './core/event.js';
export * from './events/event.js';
export * from './networking/ip-address.js';
export * from './coordination/lease.js';
export * from './rbac/role.js';
export * from './rbac/cluster-role.js';
export * from './rbac/role-binding.js';
export * from './rbac/cluster-role-binding.js';
export * from './authorization/access-review.js';
export * from './authorization/subject-access-review.js';
export * from './authorization/local-subject-access-review.js';
export * from './authorization/self-subject-access-review.js';
export * from './authorization/self-subject-rules-review.js';
export * from './authentication/user-info.js';
export * from './authentication/token-review.js';
export * from './authentication/self-subject-review.js';
export * from './authentication/token-request.js';
export type * from './apiextensions/types.js';
export * from './apiextensions/names.js';
export * from './apiextensions/conditions.js';
export { apiApprovalCondition } from './apiextensions/api-approval.js';
export { customResourceDefinitions, defaultDeprecationWarning } from './apiextensions/custom-resource.js';
export { customResourceDefinitionDefinition, customResourceCleanupFinalizer } from './apiextensions/custom-resource-definition.js';
export { customResourceScale } from './apiextensions/scale-subresource.js';
export { scaleKind, type Scale } from './autoscaling/scale.js';
export type { Subject } from './common/subject.js';
export type { RoleRef } from './common/role-ref.js';
export type { LabelSelector, LabelSelectorRequirement } from './common/label-selector.js';
export { objectMetaSchema } from './common/object-meta-schema.js';
export { kubernetesSchemaKeywords, kubernetesSchemaFormats } from './common/schema.js';
export { humanDuration } from './common/table.js';
export type * from './admissionregistration/types.js';
export { validatingAdmissionPolicyDefinition, type PolicyVersion } from './admissionregistration/validating-admission-policy.js';
export { validatingAdmissionPolicyBindingDefinition } from './admissionregistration/validating-admission-policy-binding.js';
export * from './admissionregistration/policy-cel.js';
export { parseGroupVersion } from './admissionregistration/validation.js';
export { compilePolicy, type CompiledPolicy } from './admissionregistration/compiled-policy.js';
export { compileMatch, matches, type CompiledMatch, type EquivalentResource, type GroupVersionKind, type GroupVersionResource, type MatchRequest } from './admissionregistration/matching.js';
export { evaluatePolicy, type PolicyDecision } from './admissionregistration/policy-validator.js';
/** The time bound of a request's expressions (see @plat/cel's interrupt.ts), for the policy plugin. */
export { ExpressionTimer } from '@plat/cel';
export type { Activation } from './admissionregistration/policy-evaluation.js';
export { policyActivation, withParams, type PolicyAuthorizer } from './admissionregistration/policy-activation.js';
export { typeCheckPolicy, type KindResolver, type TypedKind } from './admissionregistration/policy-type-checking.js';

// A definition of a particular kind is a definition of some kind: the store sees only KubeObjects.
const register = <T extends KubeObject>(definition: ResourceDefinition<T>): ResourceDefinition =>
  definition as unknown as ResourceDefinition;

export const builtinDefinitions: readonly ResourceDefinition[] = [
  register(namespaceDefinition),
  register(nodeDefinition),
  register(serviceAccountDefinition),
  register(configMapDefinition),
  register(secretDefinition),
  register(limitRangeDefinition),
  register(eventDefinition),
  register(eventsAPIEventDefinition),
  register(ipAddressDefinition),
  register(leaseDefinition),
  register(roleDefinition),
  register(clusterRoleDefinition),
  register(roleBindingDefinition),
  register(clusterRoleBindingDefinition),
  register(subjectAccessReviewDefinition),
  register(localSubjectAccessReviewDefinition),
  register(selfSubjectAccessReviewDefinition),
  register(selfSubjectRulesReviewDefinition),
  register(tokenReviewDefinition),
  register(selfSubjectReviewDefinition),
  register(customResourceDefinitionDefinition),
  register(validatingAdmissionPolicyDefinition('v1beta1')),
  register(validatingAdmissionPolicyBindingDefinition('v1beta1')),
  register(validatingAdmissionPolicyDefinition('v1alpha1')),
  register(validatingAdmissionPolicyBindingDefinition('v1alpha1')),
];

/** Kinds served as a subresource of another kind (virtual.subresourceOf says where): serviceaccounts/token. */
export const builtinSubresourceDefinitions: readonly ResourceDefinition[] = [register(tokenRequestDefinition)];
export { systemNamespaces, systemNamespaceObjects, immortalNamespaces, systemNamespacePrefix } from './system-namespaces.js';
export * from './apiextensions/schema/index.js';
