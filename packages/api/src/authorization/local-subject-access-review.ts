// LocalSubjectAccessReview (authorization.{domain}/v1, namespaced, create only, never stored): a
// SubjectAccessReview confined to one namespace, so that namespace admins may be granted it.
import { invalid, newPath } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import {
  answerSubjectAccessReview,
  subjectAccessReviewStatusSchema,
  validateEmptyMetadata,
  validateSubjectAccessReviewSpec,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewStatus,
} from './access-review.js';
import { subjectAccessReviewSpecSchema } from './subject-access-review.js';

export interface LocalSubjectAccessReview extends KubeObject {
  spec: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

export const localSubjectAccessReviewDefinition = {
  group: 'authorization.{domain}',
  version: 'v1',
  kind: 'LocalSubjectAccessReview',
  resource: 'localsubjectaccessreviews',
  singularName: 'localsubjectaccessreview',
  namespaced: true,
  verbs: ['create'],
  schema: kindSchema(
    'Checks whether or not a user or group can perform an action in a given namespace.',
    { spec: subjectAccessReviewSpecSchema, status: subjectAccessReviewStatusSchema },
    ['spec'],
  ),
  strategy: {
    // The namespace of the request (metadata.namespace, set from the path) is the one asked about
    // when the review names none, as resourceAttributes.namespace's documentation says.
    default(review) {
      const attributes = review.spec?.resourceAttributes;
      if (attributes && !attributes.namespace) attributes.namespace = review.metadata.namespace ?? '';
    },
    validate(review) {
      const errors = [
        ...validateSubjectAccessReviewSpec(review.spec, newPath('spec')),
        ...validateEmptyMetadata(review.metadata, newPath('metadata'), true),
      ];
      const attributes = review.spec?.resourceAttributes;
      if (attributes && attributes.namespace !== review.metadata.namespace) {
        errors.push(invalid(newPath('spec', 'resourceAttributes', 'namespace'), attributes.namespace ?? '', 'must match metadata.namespace'));
      }
      if (review.spec?.nonResourceAttributes) {
        errors.push(invalid(newPath('spec', 'nonResourceAttributes'), review.spec.nonResourceAttributes, 'disallowed on this kind of request'));
      }
      return errors;
    },
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.authorization.v1.LocalSubjectAccessReview' },
  virtual: {
    create: (review, { services }) => answerSubjectAccessReview(review, (attributes) => services.authorize(attributes)),
  },
} satisfies ResourceDefinition<LocalSubjectAccessReview>;
