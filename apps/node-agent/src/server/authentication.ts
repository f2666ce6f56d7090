// Who is asking the secured server: a client certificate signed by clientCAFile (CN the user, O the
// groups), else a bearer token the API vouches for (a TokenReview, its answer cached for cacheTTL),
// else, when enabled, system:anonymous. Credentials that are given but fail are a 401, whatever
// anonymous says (upstream's fail-on-error union).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from '@plat/apimachinery';
import { TtlCache } from './ttl-cache.js';

/** What a TokenReview answered. */
export interface TokenReviewResult {
  authenticated: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

export interface AuthenticationOptions {
  /** x509: client certificates are asked for and checked against this CA bundle (the server's TLS options carry it). */
  x509: boolean;
  /** Bearer tokens, reviewed by the API; absent: tokens are not accepted. */
  webhook?: { review(token: string): Promise<TokenReviewResult>; cacheTTLMs: number };
  anonymous: boolean;
}

export type AuthenticationResult = { user: UserInfo } | { failure: string };

const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
const AUTHENTICATED = 'system:authenticated';

/** Every authenticated user is in system:authenticated (upstream's AuthenticatedGroupAdder). */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes(AUTHENTICATED) ? user : { ...user, groups: [...user.groups, AUTHENTICATED] };
}

export class RequestAuthenticator {
  private readonly tokens = new TtlCache<TokenReviewResult>();

  constructor(private readonly options: AuthenticationOptions) {}

  async authenticate(req: IncomingMessage): Promise<AuthenticationResult> {
    if (this.options.x509) {
      const socket = req.socket as TLSSocket;
      const peer = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
      if (peer && Object.keys(peer).length > 0) {
        if (!socket.authorized) return { failure: `verifying certificate failed: ${String(socket.authorizationError)}` };
        const organizations = peer.subject?.O;
        const groups = organizations === undefined ? [] : Array.isArray(organizations) ? organizations : [organizations];
        const name = Array.isArray(peer.subject?.CN) ? peer.subject.CN[0] : peer.subject?.CN;
        if (name) return { user: withAuthenticatedGroup({ name, groups }) };
      }
    }
    const header = req.headers.authorization;
    const bearer = header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (bearer && this.options.webhook) {
      const result = await this.review(bearer);
      if (!result.authenticated || !result.user?.username) return { failure: result.error || 'invalid bearer token' };
      const { username, uid, groups = [], extra } = result.user;
      return { user: withAuthenticatedGroup({ name: username, groups, ...(uid && { uid }), ...(extra && { extra }) }) };
    }
    if (header) return { failure: 'invalid bearer token' };
    return this.options.anonymous ? { user: ANONYMOUS } : { failure: 'no credentials' };
  }

  /** The API's answer for a token, from the cache while it is fresh (errors reaching the API are not kept). */
  private async review(token: string): Promise<TokenReviewResult> {
    const webhook = this.options.webhook!;
    const key = createHash('sha256').update(token).digest('hex');
    const cached = this.tokens.get(key);
    if (cached) return cached;
    const result = await webhook.review(token);
    this.tokens.set(key, result, webhook.cacheTTLMs);
    return result;
  }
}
