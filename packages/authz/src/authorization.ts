// Authorization: an ordered union of authorizers decides each request, system:masters first as
// upstream's privileged-group authorizer; a refusal is a 403 Status in upstream's words.
import { StatusError, newForbidden, type AccessAttributes, type AccessDecision, type AccessRules, type UserInfo } from '@plat/apimachinery';
import { forbiddenMessage } from '@plat/auth';
import { SYSTEM_PRIVILEGED_GROUP } from '@plat/authn';

export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'RBAC' | 'Webhook';
export const authorizationModes: readonly AuthorizationMode[] = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Webhook'];

export interface Authorizer {
  authorize(attributes: AccessAttributes): AccessDecision | Promise<AccessDecision>;
  /** The rules that apply; absent when the authorizer lists none (the privileged-group authorizer). */
  rulesFor?(user: UserInfo, namespace: string): AccessRules | Promise<AccessRules>;
}

const alwaysAllow = {
  authorize: () => ({ decision: 'Allow', reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
} satisfies Authorizer & SyncAuthorizer;

const alwaysDeny = {
  authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
} satisfies Authorizer & SyncAuthorizer;

const privilegedGroups: Authorizer & SyncAuthorizer = {
  authorize: ({ user }: AccessAttributes): AccessDecision =>
    user.groups.includes(SYSTEM_PRIVILEGED_GROUP) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' },
};

/** Upstream's aggregate of errors: one as it is, several as `[a, b]`. */
const aggregate = (errors: readonly string[]): string => (errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);

/** No authorizer decided: the reasons, evaluation errors and errors of all, joined as upstream's union. */
function noOpinion(results: readonly AccessDecision[]): AccessDecision {
  const reasons = results.map((r) => r.reason).filter(Boolean);
  const evaluationErrors = results.flatMap((r) => (r.evaluationError ? [r.evaluationError] : []));
  const errors = results.flatMap((r) => (r.error ? [r.error] : []));
  return {
    decision: 'NoOpinion',
    reason: reasons.join('\n'),
    ...(evaluationErrors.length && { evaluationError: evaluationErrors.join('\n') }),
    ...(errors.length && { error: aggregate(errors) }),
  };
}

/**
 * The first Allow or Deny wins (with its own error, if any); with none, the reasons, evaluation
 * errors and errors of all are joined, as upstream's union. Rules are those of every authorizer
 * that lists them, incomplete if any says so.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(attributes) {
      const results: AccessDecision[] = [];
      for (const authorizer of authorizers) {
        const result = await authorizer.authorize(attributes);
        if (result.decision !== 'NoOpinion') return result;
        results.push(result);
      }
      return noOpinion(results);
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

/** An authorizer that answers at once: what expressions ask (the CEL authorizer library) must not wait. */
export interface SyncAuthorizer {
  authorize(attributes: AccessAttributes): AccessDecision;
}

/** The authorizers of the modes, system:masters first (AlwaysAllow and AlwaysDeny answer from constants). */
function modeAuthorizers<A extends SyncAuthorizer | Authorizer>(modes: readonly AuthorizationMode[], rbac: A | undefined, webhook: A | undefined): (A | SyncAuthorizer)[] {
  const byMode = (mode: AuthorizationMode): A | SyncAuthorizer => {
    if (mode === 'AlwaysAllow') return alwaysAllow;
    if (mode === 'AlwaysDeny') return alwaysDeny;
    if (mode === 'Webhook') {
      if (!webhook) throw new Error('the Webhook authorization mode needs --authorization-webhook-config-file');
      return webhook;
    }
    if (!rbac) throw new Error('the RBAC authorization mode needs the resource API');
    return rbac;
  };
  return [privilegedGroups, ...modes.map(byMode)];
}

/**
 * The authorizer for --authorization-mode: system:masters is always allowed first, as upstream;
 * the RBAC mode needs the RBAC authorizer, which reads the API's objects, and the Webhook mode
 * the webhook's (--authorization-webhook-config-file).
 */
export function newAuthorizer(modes: readonly AuthorizationMode[], options: { rbac?: Authorizer; webhook?: Authorizer } = {}): Authorizer {
  return unionAuthorizer(modeAuthorizers(modes, options.rbac, options.webhook) as Authorizer[]);
}

/**
 * newAuthorizer's decisions, answered synchronously: every mode answers from memory (RBAC from its
 * watched index; the webhook from its cache, or else with an error, see WebhookAuthorizer.authorizeNow).
 */
export function newSyncAuthorizer(modes: readonly AuthorizationMode[], options: { rbac?: SyncAuthorizer; webhook?: SyncAuthorizer } = {}): SyncAuthorizer {
  const authorizers = modeAuthorizers(modes, options.rbac, options.webhook);
  return {
    authorize(attributes) {
      const results: AccessDecision[] = [];
      for (const authorizer of authorizers) {
        const result = authorizer.authorize(attributes);
        if (result.decision !== 'NoOpinion') return result;
        results.push(result);
      }
      return noOpinion(results);
    },
  };
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

