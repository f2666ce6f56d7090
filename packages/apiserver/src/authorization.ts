// Authorization: an ordered union of authorizers decides each request. RBAC slots in as one more
// mode in newAuthorizer.
import { goQuote, newForbidden } from '@plat/apimachinery';
import type { Middleware } from './context.js';
import type { RequestInfo } from './request-info.js';
import { SYSTEM_PRIVILEGED_GROUP, type UserInfo } from './user.js';

export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny';
export const authorizationModes: readonly AuthorizationMode[] = ['AlwaysAllow', 'AlwaysDeny'];

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, for the Forbidden message and the logs; may be empty. */
  reason: string;
}

export interface AuthorizationAttributes extends Omit<RequestInfo, 'parts' | 'apiPrefix'> {
  user: UserInfo;
}

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): AuthorizationResult | Promise<AuthorizationResult>;
}

export const alwaysAllow: Authorizer = { authorize: () => ({ decision: 'Allow', reason: '' }) };
export const alwaysDeny: Authorizer = { authorize: () => ({ decision: 'NoOpinion', reason: 'Everything is forbidden.' }) };

const privilegedGroups: Authorizer = {
  authorize: ({ user }) =>
    user.groups.includes(SYSTEM_PRIVILEGED_GROUP) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' },
};

/** The first Allow or Deny wins; with none, the reasons of all are joined. */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(attributes) {
      const reasons: string[] = [];
      for (const authorizer of authorizers) {
        const result = await authorizer.authorize(attributes);
        if (result.decision !== 'NoOpinion') return result;
        if (result.reason) reasons.push(result.reason);
      }
      return { decision: 'NoOpinion', reason: reasons.join('\n') };
    },
  };
}

const modeAuthorizers: Record<AuthorizationMode, Authorizer> = { AlwaysAllow: alwaysAllow, AlwaysDeny: alwaysDeny };

/** The authorizer for --authorization-mode; system:masters is always allowed first, as upstream. */
export function newAuthorizer(modes: readonly AuthorizationMode[]): Authorizer {
  return unionAuthorizer([privilegedGroups, ...modes.map((mode) => modeAuthorizers[mode])]);
}

/** Upstream's wording: `User "bob" cannot list resource "pods" in API group "" in the namespace "ns"`. */
export function forbiddenMessage(a: AuthorizationAttributes): string {
  const user = goQuote(a.user.name);
  if (!a.isResourceRequest) return `User ${user} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = `User ${user} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)}`;
  return a.namespace ? `${what} in the namespace ${goQuote(a.namespace)}` : `${what} at the cluster scope`;
}

export function authorizationFilter(authorizer: Authorizer): Middleware {
  return async (ctx, next) => {
    const { isResourceRequest, path, verb, apiGroup, apiVersion, namespace, resource, subresource, name } = ctx.state.requestInfo;
    const attributes: AuthorizationAttributes = {
      ...{ isResourceRequest, path, verb, apiGroup, apiVersion, namespace, resource, subresource, name },
      user: ctx.state.user,
    };
    // An authorizer that fails is a bug or an outage: the error handler answers 500 and logs it.
    const result = await authorizer.authorize(attributes);
    if (result.decision !== 'Allow') {
      const message = result.reason ? `${forbiddenMessage(attributes)}: ${result.reason}` : forbiddenMessage(attributes);
      throw newForbidden({ group: attributes.apiGroup, resource: attributes.resource }, attributes.name, new Error(message));
    }
    await next();
  };
}
