// SelfSubjectAccessReview (authorization.{domain}/v1, cluster-scoped, create only, never stored):
// may I perform an action? A user may always ask this of themselves.
import { newPath } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { objectSchema } from '../common/schema.js';
import {
  attributesFrom,
  nonResourceAttributesSchema,
  resourceAttributesSchema,
  statusFrom,
  subjectAccessReviewStatusSchema,
  validateAttributesChoice,
  validateEmptyMetadata,
  type NonResourceAttributes,
  type ResourceAttributes,
  type SubjectAccessReviewStatus,
} from './access-review.js';

export interface SelfSubjectAccessReview extends KubeObject {
  spec: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: NonResourceAttributes };
  status?: SubjectAccessReviewStatus;
}

export const selfSubjectAccessReviewDefinition = {
  group: 'authorization.{domain}',
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  resource: 'selfsubjectaccessreviews',
  singularName: 'selfsubjectaccessreview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema(
    'Checks whether the current user can perform an action. An empty spec.namespace means all namespaces.',
    {
      spec: objectSchema('A description of the access request: exactly one of resourceAttributes and nonResourceAttributes.', {
        resourceAttributes: resourceAttributesSchema,
        nonResourceAttributes: nonResourceAttributesSchema,
      }),
      status: subjectAccessReviewStatusSchema,
    },
    ['spec'],
  ),
  strategy: {
    validate: (review) => [
      ...validateAttributesChoice(review.spec, newPath('spec')),
      ...validateEmptyMetadata(review.metadata, newPath('metadata'), false),
    ],
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.authorization.v1.SelfSubjectAccessReview' },
  virtual: {
    async create(review, { services, user }) {
      review.status = statusFrom(await services.authorize(attributesFrom(user, review.spec)));
      return review;
    },
  },
} satisfies ResourceDefinition<SelfSubjectAccessReview>;
