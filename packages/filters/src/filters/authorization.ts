// Authorization (upstream's WithAuthorization): the authorizer decides the request with its user;
// anything but Allow is a 403 in upstream's words, or a 500 when an authorizer could not decide
// (a webhook that failed). The decision is an audit annotation.
import { newInternalError, type AccessAttributes, type UserInfo } from '@plat/apimachinery';
import type { Logger } from 'pino';
import { forbiddenError, type Authorizer } from '@plat/authz';
import type { Middleware } from '../context.js';
import type { RequestInfo } from '../request-info.js';

/** What a request asks to do, for the authorizer. */
function requestAttributes(info: RequestInfo, user: UserInfo): AccessAttributes {
  const { isResourceRequest, path, verb, apiGroup, apiVersion, namespace, resource, subresource, name } = info;
  return { isResourceRequest, path, verb, apiGroup, apiVersion, namespace, resource, subresource, name, user };
}

export function authorizationFilter(authorizer: Authorizer, domain: string, logger: Logger): Middleware {
  return async (ctx, next) => {
    const attributes = requestAttributes(ctx.state.requestInfo, ctx.state.user);
    // An authorizer that throws is a bug: the error handler answers 500 and logs it. One that could
    // not decide (a webhook down) says so in `error`.
    const result = await authorizer.authorize(attributes);
    // Upstream's audit annotations of the decision.
    const annotations = ctx.state.auditAnnotations ?? {};
    // An error does not stop an Allow: the authorizer that allowed has decided (upstream's order).
    if (result.decision !== 'Allow' && result.error) {
      annotations[`authorization.${domain}/reason`] = 'internal error';
      logger.warn({ err: result.error, uri: ctx.url }, 'authorization failed');
      throw newInternalError(result.error);
    }
    annotations[`authorization.${domain}/decision`] = result.decision === 'Allow' ? 'allow' : 'forbid';
    if (result.reason) annotations[`authorization.${domain}/reason`] = result.reason;
    if (result.decision !== 'Allow') throw forbiddenError(attributes, result.reason);
    await next();
  };
}
