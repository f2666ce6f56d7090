// What the server lends the virtual resources (access reviews, TokenReview, TokenRequest): its
// authorizer, its token authenticators and its service-account token issuer.
import { newGenericServerResponse } from '@plat/apimachinery';
import type { AccessAttributes, RequestUser, VirtualServices } from '@plat/registry';
import { authenticateToken, type AuthenticationOptions } from '../authentication.js';
import type { Authorizer } from '../authorization.js';
import type { UserInfo } from '../user.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';

const asUser = (user: RequestUser): UserInfo => ({
  name: user.name,
  uid: user.uid ?? '',
  groups: [...user.groups],
  ...(user.extra && { extra: user.extra }),
});

export function virtualServices(
  authorizer: Authorizer,
  authentication: () => AuthenticationOptions,
  tokens: ServiceAccountTokens | undefined,
): VirtualServices {
  return {
    async authorize(attributes: AccessAttributes) {
      const result = await authorizer.authorize({ ...attributes, user: asUser(attributes.user) });
      return {
        decision: result.decision === 'Allow' ? 'allow' : result.decision === 'Deny' ? 'deny' : 'no-opinion',
        reason: result.reason,
        ...(result.evaluationError && { evaluationError: result.evaluationError }),
      };
    },
    async rulesFor(user, namespace) {
      if (!authorizer.rulesFor) return { resourceRules: [], nonResourceRules: [], incomplete: true };
      return authorizer.rulesFor(asUser(user), namespace);
    },
    async reviewToken(token, audiences) {
      const result = await authenticateToken(token, authentication(), audiences);
      if ('error' in result) return { authenticated: false, error: result.error };
      return { authenticated: true, user: result.user, audiences: result.audiences };
    },
    async issueServiceAccountToken(request) {
      if (!tokens?.canIssue) throw newGenericServerResponse(404);
      return tokens.issue(request);
    },
  };
}
