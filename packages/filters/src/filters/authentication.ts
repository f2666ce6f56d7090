// Authentication (upstream's WithAuthentication): who the request is, from its client certificate or
// bearer token, else anonymous; credentials given but not valid are a 401.
import { newUnauthorized } from '@plat/apimachinery';
import { authenticate, type AuthenticationOptions, type TlsPeer } from '@plat/authn';
import type { Middleware } from '../context.js';

export function authenticationFilter(options: AuthenticationOptions): Middleware {
  return async (ctx, next) => {
    const user = await authenticate({ authorization: ctx.get('Authorization') || undefined, connection: ctx.req.socket as TlsPeer }, options);
    if (!user) throw newUnauthorized('Unauthorized');
    ctx.state.user = user;
    await next();
  };
}
