// Authorization (upstream's WithAuthorization): the authorizer decides the request with its user;
// anything but Allow is a 403 in upstream's words. The decision is an audit annotation.
import type { AccessAttributes, UserInfo } from '@plat/apimachinery';
import { forbiddenError, type Authorizer } from '../authorization.js';
import type { Middleware } from '../context.js';
import type { RequestInfo } from '../request-info.js';

/** What a request asks to do, for the authorizer. */
function requestAttributes(info: RequestInfo, user: UserInfo): AccessAttributes {
  const { isResourceRequest, path, verb, apiGroup, apiVersion, namespace, resource, subresource, name } = info;
  return { isResourceRequest, path, verb, apiGroup, apiVersion, namespace, resource, subresource, name, user };
}

export function authorizationFilter(authorizer: Authorizer, domain = 'plat.io'): Middleware {
  return async (ctx, next) => {
    const attributes = requestAttributes(ctx.state.requestInfo, ctx.state.user);
    // An authorizer that fails is a bug or an outage: the error handler answers 500 and logs it.
    const result = await authorizer.authorize(attributes);
    // Upstream's audit annotations of the decision.
    const annotations = ctx.state.auditAnnotations;
    if (annotations) {
      annotations[`authorization.${domain}/decision`] = result.decision === 'Allow' ? 'allow' : 'forbid';
      if (result.reason) annotations[`authorization.${domain}/reason`] = result.reason;
    }
    if (result.decision !== 'Allow') throw forbiddenError(attributes, result.reason);
    await next();
  };
}
