// FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.{domain}) as a client may send
// them: @plat/flowcontrol's spec shapes, every field optional (the rules report what is missing),
// with the status the API serves. v1beta2's PriorityLevelConfiguration names the Limited shares
// assuredConcurrencyShares; conversion.ts makes it the v1beta3 form this file describes.
import type { KubeObject } from '@plat/registry';
import type {
  ExemptPriorityLevelConfiguration,
  FlowSchemaSpec,
  LimitedPriorityLevelConfiguration,
  LimitResponse,
  PolicyRulesWithSubjects,
  PriorityLevelConfigurationSpec,
  QueuingConfiguration,
  Subject,
} from '@plat/flowcontrol';

/** Every field of T optional, through objects and lists (what a decoded request may hold). */
export type Loose<T> = T extends readonly (infer E)[] ? Loose<E>[] : T extends object ? { [K in keyof T]?: Loose<T[K]> } : T;

export type SubjectInput = Loose<Subject>;
export type RuleInput = Loose<PolicyRulesWithSubjects>;
export type FlowSchemaSpecInput = Loose<FlowSchemaSpec>;
export type QueuingInput = Loose<QueuingConfiguration>;
export type LimitResponseInput = Loose<LimitResponse>;
export type ExemptInput = Loose<ExemptPriorityLevelConfiguration>;

/** The Limited configuration in either version: v1beta3's nominalConcurrencyShares, or v1beta2's assuredConcurrencyShares. */
export type LimitedInput = Loose<LimitedPriorityLevelConfiguration> & { assuredConcurrencyShares?: number };

export type PriorityLevelConfigurationSpecInput = Omit<Loose<PriorityLevelConfigurationSpec>, 'limited'> & { limited?: LimitedInput };

/** A status condition of either kind (FlowSchemaCondition, PriorityLevelConfigurationCondition). */
export interface FlowControlCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface FlowControlStatus {
  conditions?: FlowControlCondition[];
}

export interface FlowSchemaObject extends KubeObject {
  spec?: FlowSchemaSpecInput;
  status?: FlowControlStatus;
}

export interface PriorityLevelConfigurationObject extends KubeObject {
  spec?: PriorityLevelConfigurationSpecInput;
  status?: FlowControlStatus;
}

/** The versions served in Kubernetes 1.28: v1beta3 (preferred) and v1beta2 (deprecated in 1.26, removed in 1.29). */
export type FlowControlVersion = 'v1beta3' | 'v1beta2';

/** The field of a Limited level's shares in a version. */
export const sharesField = (version: FlowControlVersion): 'nominalConcurrencyShares' | 'assuredConcurrencyShares' =>
  version === 'v1beta2' ? 'assuredConcurrencyShares' : 'nominalConcurrencyShares';
