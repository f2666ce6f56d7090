// Authentication: bearer tokens from the token file, else anonymous. Runs for every path, health
// checks included, as upstream's filter does.
import { newUnauthorized } from '@plat/apimachinery';
import type { Middleware } from './context.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, anonymousUser, type UserInfo } from './user.js';

export interface AuthenticationOptions {
  /** Bearer token -> user, as loaded from --token-auth-file. */
  tokens?: ReadonlyMap<string, UserInfo>;
  /** Treat requests without credentials as system:anonymous (default true), else answer 401. */
  anonymous?: boolean;
}

/** The bearer token of an Authorization header, or undefined when it carries none (upstream's rules). */
function bearerToken(header: string | undefined): string | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const parts = value.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

/** Adds system:authenticated unless the user already has it or is unauthenticated. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

/**
 * Returns the user of a request, or undefined when no authenticator recognises it. A bearer token
 * that is not known fails the request even when anonymous requests are allowed: a client that
 * sends credentials wants them checked, not ignored.
 */
export function authenticate(authorization: string | undefined, options: AuthenticationOptions): UserInfo | undefined {
  const token = bearerToken(authorization);
  if (token !== undefined) {
    const user = options.tokens?.get(token);
    if (!user) throw newUnauthorized('Unauthorized');
    return withAuthenticatedGroup(user);
  }
  return options.anonymous === false ? undefined : anonymousUser();
}

export function authenticationFilter(options: AuthenticationOptions): Middleware {
  return async (ctx, next) => {
    const user = authenticate(ctx.get('Authorization') || undefined, options);
    if (!user) throw newUnauthorized('Unauthorized');
    ctx.state.user = user;
    await next();
  };
}
