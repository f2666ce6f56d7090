// What the server lends the virtual resources (access reviews, TokenReview, TokenRequest): its
// authorizer, its token authenticators and its service-account token issuer.
import { newGenericServerResponse } from '@plat/apimachinery';
import type { VirtualServices } from '@plat/registry';
import { authenticateToken, type AuthenticationOptions } from '@plat/authn';
import type { Authorizer } from '@plat/authz';
import type { ServiceAccountTokens } from '@plat/authn';

export function virtualServices(
  authorizer: Authorizer,
  authentication: AuthenticationOptions,
  tokens: ServiceAccountTokens | undefined,
): VirtualServices {
  return {
    async authorize(attributes) {
      return authorizer.authorize(attributes);
    },
    async rulesFor(user, namespace) {
      if (!authorizer.rulesFor) return { resourceRules: [], nonResourceRules: [], incomplete: true };
      return authorizer.rulesFor(user, namespace);
    },
    async reviewToken(token, audiences) {
      const result = await authenticateToken(token, authentication, audiences);
      if ('error' in result) return { authenticated: false, error: result.error };
      return { authenticated: true, user: result.user, audiences: result.audiences };
    },
    async issueServiceAccountToken(request) {
      if (!tokens?.canIssue) throw newGenericServerResponse(404);
      return tokens.issue(request);
    },
  };
}
