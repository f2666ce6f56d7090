// SubjectAccessReview (authorization.{domain}/v1, cluster-scoped, create only, never stored): may a
// given user or group perform an action?
import { newPath } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { objectSchema } from '../common/schema.js';
import {
  answerSubjectAccessReview,
  nonResourceAttributesSchema,
  resourceAttributesSchema,
  subjectAccessReviewStatusSchema,
  subjectSchemaFields,
  validateEmptyMetadata,
  validateSubjectAccessReviewSpec,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewStatus,
} from './access-review.js';

export interface SubjectAccessReview extends KubeObject {
  spec: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

export const subjectAccessReviewSpecSchema = objectSchema(
  'A description of the access request: exactly one of resourceAttributes and nonResourceAttributes.',
  {
    resourceAttributes: resourceAttributesSchema,
    nonResourceAttributes: nonResourceAttributesSchema,
    ...subjectSchemaFields,
  },
);

export const subjectAccessReviewDefinition = {
  group: 'authorization.{domain}',
  version: 'v1',
  kind: 'SubjectAccessReview',
  resource: 'subjectaccessreviews',
  singularName: 'subjectaccessreview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema(
    'Checks whether or not a user or group can perform an action.',
    { spec: subjectAccessReviewSpecSchema, status: subjectAccessReviewStatusSchema },
    ['spec'],
  ),
  strategy: {
    validate: (review) => [
      ...validateSubjectAccessReviewSpec(review.spec, newPath('spec')),
      ...validateEmptyMetadata(review.metadata, newPath('metadata'), false),
    ],
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.authorization.v1.SubjectAccessReview' },
  virtual: {
    create: (review, { services }) => answerSubjectAccessReview(review, (attributes) => services.authorize(attributes)),
  },
} satisfies ResourceDefinition<SubjectAccessReview>;
