// Authorization: an ordered union of authorizers decides each request, system:masters first as
// upstream's privileged-group authorizer; a refusal is a 403 Status in upstream's words.
import { StatusError, newForbidden, type AccessAttributes, type AccessDecision, type AccessRules, type UserInfo } from '@plat/apimachinery';
import { forbiddenMessage } from '@plat/auth';
import { SYSTEM_PRIVILEGED_GROUP } from './user.js';

export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'RBAC' | 'Webhook';
export const authorizationModes: readonly AuthorizationMode[] = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Webhook'];

export interface Authorizer {
  authorize(attributes: AccessAttributes): AccessDecision | Promise<AccessDecision>;
  /** The rules that apply; absent when the authorizer lists none (the privileged-group authorizer). */
  rulesFor?(user: UserInfo, namespace: string): AccessRules | Promise<AccessRules>;
}

const alwaysAllow: Authorizer = {
  authorize: () => ({ decision: 'Allow', reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

const alwaysDeny: Authorizer = {
  authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

const privilegedGroups: Authorizer = {
  authorize: ({ user }) =>
    user.groups.includes(SYSTEM_PRIVILEGED_GROUP) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' },
};

/** Upstream's aggregate of errors: one as it is, several as `[a, b]`. */
const aggregate = (errors: readonly string[]): string => (errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);

/**
 * The first Allow or Deny wins (with its own error, if any); with none, the reasons, evaluation
 * errors and errors of all are joined, as upstream's union. Rules are those of every authorizer
 * that lists them, incomplete if any says so.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(attributes) {
      const reasons: string[] = [];
      const evaluationErrors: string[] = [];
      const errors: string[] = [];
      for (const authorizer of authorizers) {
        const result = await authorizer.authorize(attributes);
        if (result.decision !== 'NoOpinion') return result;
        if (result.reason) reasons.push(result.reason);
        if (result.evaluationError) evaluationErrors.push(result.evaluationError);
        if (result.error) errors.push(result.error);
      }
      return {
        decision: 'NoOpinion',
        reason: reasons.join('\n'),
        ...(evaluationErrors.length && { evaluationError: evaluationErrors.join('\n') }),
        ...(errors.length && { error: aggregate(errors) }),
      };
    },
    async rulesFor(user, namespace) {
      const union: AccessRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const authorizer of authorizers) {
        if (!authorizer.rulesFor) continue;
        const rules = await authorizer.rulesFor(user, namespace);
        union.resourceRules.push(...rules.resourceRules);
        union.nonResourceRules.push(...rules.nonResourceRules);
        union.incomplete ||= rules.incomplete;
        if (rules.evaluationError) errors.push(rules.evaluationError);
      }
      if (errors.length) union.evaluationError = aggregate(errors);
      return union;
    },
  };
}

/**
 * The authorizer for --authorization-mode: system:masters is always allowed first, as upstream;
 * the RBAC mode needs the RBAC authorizer, which reads the API's objects, and the Webhook mode
 * the webhook's (--authorization-webhook-config-file).
 */
export function newAuthorizer(modes: readonly AuthorizationMode[], options: { rbac?: Authorizer; webhook?: Authorizer } = {}): Authorizer {
  const byMode = (mode: AuthorizationMode): Authorizer => {
    if (mode === 'AlwaysAllow') return alwaysAllow;
    if (mode === 'AlwaysDeny') return alwaysDeny;
    if (mode === 'Webhook') {
      if (!options.webhook) throw new Error('the Webhook authorization mode needs --authorization-webhook-config-file');
      return options.webhook;
    }
    if (!options.rbac) throw new Error('the RBAC authorization mode needs the resource API');
    return options.rbac;
  };
  return unionAuthorizer([privilegedGroups, ...modes.map(byMode)]);
}

/**
 * Upstream's 403 for a refused request: `pods is forbidden: User "bob" cannot list resource "pods"
 * in API group "" in the namespace "ns"`, with the authorizers' reason after ": ".
 */
export function forbiddenError(attributes: AccessAttributes, reason: string): StatusError {
  const qualified = attributes.isResourceRequest ? { group: attributes.apiGroup, resource: attributes.resource } : { group: '', resource: '' };
  const status = newForbidden(qualified, attributes.isResourceRequest ? attributes.name : '', '').status;
  return new StatusError({ ...status, message: forbiddenMessage(attributes, reason) });
}

