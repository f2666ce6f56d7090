// SelfSubjectReview (authentication.{domain}/v1, cluster-scoped, create only, never stored): who the
// server takes the caller to be (kubectl auth whoami).
import { formatTimestamp, type KubeObject, type ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { objectSchema } from '../common/schema.js';
import { userInfoOf, userInfoSchema, type UserInfo } from './user-info.js';

export interface SelfSubjectReview extends KubeObject {
  status?: { userInfo?: UserInfo };
}

export const selfSubjectReviewDefinition = {
  group: 'authentication.{domain}',
  version: 'v1',
  kind: 'SelfSubjectReview',
  resource: 'selfsubjectreviews',
  singularName: 'selfsubjectreview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema('The user information the server has for the request that creates it, after impersonation.', {
    status: objectSchema('The user information of the requester.', { userInfo: userInfoSchema }),
  }),
  strategy: {
    validate: () => [],
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.authentication.v1.SelfSubjectReview' },
  virtual: {
    async create(review, { user }) {
      return {
        apiVersion: review.apiVersion,
        kind: review.kind,
        metadata: { creationTimestamp: formatTimestamp(new Date()) },
        status: { userInfo: userInfoOf(user) },
      };
    },
  },
} satisfies ResourceDefinition<SelfSubjectReview>;
