// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.{domain}
// v1beta1 and v1alpha1, one shape in Kubernetes 1.28): their JSON forms.
import type { KubeObject } from '@plat/registry';
import type { LabelSelector } from '../common/label-selector.js';

export type FailurePolicy = 'Fail' | 'Ignore';
export type MatchPolicy = 'Exact' | 'Equivalent';
export type ValidationAction = 'Deny' | 'Warn' | 'Audit';
export type ParameterNotFoundAction = 'Allow' | 'Deny';
export type OperationType = '*' | 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
export type RuleScope = '*' | 'Cluster' | 'Namespaced';

export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

/** A rule (admissionregistration v1's Rule with its operations), with the names it is limited to. */
export interface NamedRuleWithOperations {
  resourceNames?: string[];
  operations?: OperationType[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: RuleScope;
}

export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: MatchPolicy;
}

export interface Validation {
  expression: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface Variable {
  name: string;
  expression: string;
}

export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: FailurePolicy;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
}

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

export interface PolicyCondition {
  type: string;
  status: string;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface ValidatingAdmissionPolicyStatus {
  observedGeneration?: number;
  typeChecking?: { expressionWarnings?: ExpressionWarning[] };
  conditions?: PolicyCondition[];
}

export interface ValidatingAdmissionPolicy extends KubeObject {
  spec?: ValidatingAdmissionPolicySpec;
  status?: ValidatingAdmissionPolicyStatus;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: ParameterNotFoundAction;
}

export interface ValidatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: ValidationAction[];
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  spec?: ValidatingAdmissionPolicyBindingSpec;
}
