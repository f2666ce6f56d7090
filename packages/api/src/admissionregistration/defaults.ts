// Upstream's v1beta1 and v1alpha1 defaults of the policy kinds (Kubernetes 1.28): failurePolicy
// Fail, matchPolicy Equivalent, empty selectors (everything), rules of every scope, and a binding's
// parameterNotFoundAction Deny.
import type { MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './types.js';

function defaultRules(rules: NamedRuleWithOperations[] | undefined): void {
  for (const rule of rules ?? []) rule.scope ??= '*';
}

export function setMatchResourcesDefaults(match: MatchResources): void {
  match.matchPolicy ??= 'Equivalent';
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  defaultRules(match.resourceRules);
  defaultRules(match.excludeResourceRules);
}

export function setPolicyDefaults(policy: ValidatingAdmissionPolicy): void {
  const spec = (policy.spec ??= {});
  spec.failurePolicy ??= 'Fail';
  if (spec.matchConstraints) setMatchResourcesDefaults(spec.matchConstraints);
}

export function setBindingDefaults(binding: ValidatingAdmissionPolicyBinding): void {
  const spec = (binding.spec ??= {});
  if (spec.matchResources) setMatchResourcesDefaults(spec.matchResources);
  if (spec.paramRef) spec.paramRef.parameterNotFoundAction ??= 'Deny';
}
