// What the server lends the virtual resources: its authorizer to every one (the access reviews), its
// token authenticators and service-account token issuer to the token kinds' factories (TokenReview,
// TokenRequest), each through what the kind's own factory takes.
import { newGenericServerResponse } from '@plat/apimachinery';
import type { IssuedServiceAccountToken, ServiceAccountTokenRequest, TokenReviewOutcome } from '@plat/api';
import type { VirtualServices } from '@plat/registry';
import { authenticateToken, type AuthenticationOptions } from '@plat/authn';
import type { Authorizer } from '@plat/authz';
import type { ServiceAccountTokens } from '@plat/authn';

export function virtualServices(authorizer: Authorizer): VirtualServices {
  return {
    async authorize(attributes) {
      return authorizer.authorize(attributes);
    },
    async rulesFor(user, namespace) {
      if (!authorizer.rulesFor) return { resourceRules: [], nonResourceRules: [], incomplete: true };
      return authorizer.rulesFor(user, namespace);
    },
  };
}

/** What the token kinds answer with: the server's token authenticators, and its issuer where it issues tokens. */
export interface TokenServices {
  review(token: string, audiences: readonly string[]): Promise<TokenReviewOutcome>;
  issue(request: ServiceAccountTokenRequest): Promise<IssuedServiceAccountToken>;
}

export function tokenServices(authentication: AuthenticationOptions, tokens: ServiceAccountTokens | undefined): TokenServices {
  return {
    async review(token, audiences) {
      const result = await authenticateToken(token, authentication, audiences);
      if ('error' in result) return { authenticated: false, error: result.error };
      return { authenticated: true, user: result.user, audiences: result.audiences };
    },
    async issue(request) {
      // Not reached where the server issues no tokens: TokenRequest is then not wired at all.
      if (!tokens?.canIssue) throw newGenericServerResponse(404);
      return tokens.issue(request);
    },
  };
}
