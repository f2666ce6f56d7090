// TokenReview (authentication.{domain}/v1, cluster-scoped, create only, never stored): authenticates
// a token, so that other components (the node agent) can check the tokens they are given.
import { newBadRequest } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicStringList, booleanField, objectSchema, stringField } from '../common/schema.js';
import type { UserInfo as AuthenticatedUser } from '@plat/apimachinery';
import { userInfoOf, userInfoSchema, type UserInfo } from './user-info.js';

export interface TokenReview extends KubeObject {
  spec: { token?: string; audiences?: string[] };
  status?: { authenticated?: boolean; user: UserInfo; audiences?: string[]; error?: string };
}

/** What the server's token authenticators say of a bearer token (a TokenReview's status). */
export interface TokenReviewOutcome {
  authenticated: boolean;
  user?: AuthenticatedUser;
  audiences?: string[];
  error?: string;
}

/** The server's token authenticators, as the kind's factory is given them. */
export interface TokenReviewer {
  /** Authenticates a bearer token for the audiences (empty: the API server's). */
  review(token: string, audiences: readonly string[]): Promise<TokenReviewOutcome>;
}

export const tokenReviewDefinition = (reviewer: TokenReviewer) => ({
  group: 'authentication.{domain}',
  version: 'v1',
  kind: 'TokenReview',
  resource: 'tokenreviews',
  singularName: 'tokenreview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema(
    'Attempts to authenticate a token to a known user. Requests may be cached by the webhook token authenticator.',
    {
      spec: objectSchema('The token to authenticate.', {
        token: stringField('The opaque bearer token.'),
        audiences: atomicStringList(
          'Identifiers the resource server presented with the token; the token must be valid for at least one. Empty: the API server\u2019s audiences.',
        ),
      }),
      status: objectSchema('The result of the token authentication request.', {
        authenticated: booleanField('True if the token is associated with a known user.'),
        user: userInfoSchema,
        audiences: atomicStringList('The audiences, among those requested, the token is valid for.'),
        error: stringField('Why the token could not be checked; may be set with authenticated true as well.'),
      }),
    },
    ['spec'],
  ),
  strategy: {
    validate: () => [],
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.authentication.v1.TokenReview' },
  virtual: {
    async create(review, { domain }) {
      const token = review.spec?.token ?? '';
      if (!token) throw newBadRequest(`token is required for TokenReview in authentication.${domain}/v1`);
      const outcome = await reviewer.review(token, review.spec.audiences ?? []);
      review.status = { user: outcome.user ? userInfoOf(outcome.user) : {} };
      if (outcome.authenticated) review.status.authenticated = true;
      if (outcome.audiences?.length) review.status.audiences = outcome.audiences;
      if (outcome.error) review.status.error = outcome.error;
      return review;
    },
  },
}) satisfies ResourceDefinition<TokenReview>;
