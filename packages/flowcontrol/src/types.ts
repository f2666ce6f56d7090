// The specs of flowcontrol.apiserver.<domain>/v1beta3 FlowSchema and PriorityLevelConfiguration,
// as plain data with upstream's field names: what the controller digests. The served kinds (with
// defaults, validation, v1beta2's assuredConcurrencyShares) live with the other kinds; these are
// the shapes after defaulting.

/** Upstream's wildcards (flowcontrol/v1beta3 types.go). */
export const VERB_ALL = '*';
export const API_GROUP_ALL = '*';
export const RESOURCE_ALL = '*';
export const NON_RESOURCE_ALL = '*';
export const NAME_ALL = '*';
export const NAMESPACE_EVERY = '*';

export const PRIORITY_LEVEL_EXEMPT = 'exempt';
export const PRIORITY_LEVEL_CATCH_ALL = 'catch-all';
export const FLOW_SCHEMA_EXEMPT = 'exempt';
export const FLOW_SCHEMA_CATCH_ALL = 'catch-all';

export interface UserSubject {
  name: string;
}
export interface GroupSubject {
  name: string;
}
export interface ServiceAccountSubject {
  namespace: string;
  name: string;
}
export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  user?: UserSubject;
  group?: GroupSubject;
  serviceAccount?: ServiceAccountSubject;
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface FlowDistinguisherMethod {
  type: 'ByUser' | 'ByNamespace';
}

export interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence: number;
  distinguisherMethod?: FlowDistinguisherMethod;
  rules?: PolicyRulesWithSubjects[];
}

/** What the controller needs of a FlowSchema object: its name, UID (for the response header) and spec. */
export interface FlowSchema {
  metadata: { name: string; uid?: string };
  spec: FlowSchemaSpec;
}

export interface QueuingConfiguration {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export interface LimitResponse {
  type: 'Queue' | 'Reject';
  queuing?: QueuingConfiguration;
}

export interface LimitedPriorityLevelConfiguration {
  nominalConcurrencyShares: number;
  limitResponse: LimitResponse;
  lendablePercent?: number;
  borrowingLimitPercent?: number;
}

export interface ExemptPriorityLevelConfiguration {
  nominalConcurrencyShares?: number;
  lendablePercent?: number;
}

export interface PriorityLevelConfigurationSpec {
  type: 'Exempt' | 'Limited';
  limited?: LimitedPriorityLevelConfiguration;
  exempt?: ExemptPriorityLevelConfiguration;
}

export interface PriorityLevelConfiguration {
  metadata: { name: string; uid?: string };
  spec: PriorityLevelConfigurationSpec;
}
