// Request info (upstream's WithRequestInfo): the URL read once into verb, group, version,
// namespace, resource, subresource and name, for every filter and handler after it.
import type { Middleware } from '../context.js';
import { newRequestInfo } from '../request-info.js';

export const requestInfoFilter: Middleware = (ctx, next) => {
  ctx.state.requestInfo = newRequestInfo(ctx.method, ctx.path, new URLSearchParams(ctx.querystring));
  return next();
};
