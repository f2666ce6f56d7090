// One question to an authorizer and its answer: upstream's authorizer.Attributes and Decision, and
// the rules a user has (its RuleResolver), as RBAC, the filter chain and the access reviews share them.
import type { UserInfo } from './user.js';

export interface AccessAttributes {
  user: UserInfo;
  /** A resource verb (get, list, create, ...), or the lower-cased HTTP method of a non-resource request. */
  verb: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  isResourceRequest: boolean;
  /** The URL path of a non-resource request. */
  path: string;
}

/** Upstream's three decisions; RBAC never says Deny, only Allow or NoOpinion. */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AccessDecision {
  decision: Decision;
  /** Why, for the Forbidden message, the logs and access reviews; may be empty. */
  reason: string;
  /** A problem met while deciding (an unresolvable roleRef): reported by reviews, never a failure. */
  evaluationError?: string;
  /**
   * The authorizer could not decide (a webhook that failed; upstream's non-nil error): unless the
   * decision is Allow the request fails (500), and reviews report it as their evaluationError.
   */
  error?: string;
}

/** One resource permission as a rules review reports it. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** One non-resource permission as a rules review reports it. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** The rules a user has in a namespace, as a SelfSubjectRulesReview reports them. */
export interface AccessRules {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}
