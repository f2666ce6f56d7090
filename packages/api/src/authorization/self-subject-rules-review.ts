// SelfSubjectRulesReview (authorization.{domain}/v1, cluster-scoped, create only, never stored): the
// rules the current user has in a namespace, for user interfaces (not for authorization decisions).
import { newBadRequest, type AccessRules } from '@plat/apimachinery';
import type { KubeObject, ResourceDefinition } from '@plat/registry';
import { kindSchema } from '../common/object-meta-schema.js';
import { atomicList, atomicStringList, booleanField, objectSchema, stringField } from '../common/schema.js';

export interface SelfSubjectRulesReview extends KubeObject {
  spec: { namespace?: string };
  status?: AccessRules;
}

const resourceRuleSchema = objectSchema('The actions allowed on resources; rules are additive, so a listed rule is granted.', {
  verbs: atomicStringList('Verbs allowed; "*" means all.'),
  apiGroups: atomicStringList('API groups of the resources; "*" means all.'),
  resources: atomicStringList('Resources; "*" means all in the groups, "*/foo" the subresource foo of all.'),
  resourceNames: atomicStringList('An optional allow-list of names; empty means all.'),
}, { required: ['verbs'] });

const nonResourceRuleSchema = objectSchema('The actions allowed on non-resource URLs.', {
  verbs: atomicStringList('Verbs allowed, such as get, post, put, delete, patch, head, options; "*" means all.'),
  nonResourceURLs: atomicStringList('Partial URLs; "*" only as the whole last segment, and alone means all.'),
}, { required: ['verbs'] });

export const selfSubjectRulesReviewDefinition = {
  group: 'authorization.{domain}',
  version: 'v1',
  kind: 'SelfSubjectRulesReview',
  resource: 'selfsubjectrulesreviews',
  singularName: 'selfsubjectrulesreview',
  namespaced: false,
  verbs: ['create'],
  schema: kindSchema(
    'Enumerates the actions the current user can perform in a namespace. The list may be incomplete, and must not drive authorization decisions elsewhere: use a SubjectAccessReview or LocalSubjectAccessReview.',
    {
      spec: objectSchema('The namespace to evaluate rules in.', { namespace: stringField('The namespace to evaluate rules in. Required.') }),
      status: objectSchema(
        'The rule set, and whether it is complete.',
        {
          resourceRules: atomicList('The actions allowed on resources; order does not matter and duplicates may appear.', resourceRuleSchema),
          nonResourceRules: atomicList('The actions allowed on non-resource URLs; order does not matter and duplicates may appear.', nonResourceRuleSchema),
          incomplete: booleanField('True when the rules are incomplete, as when an authorizer cannot list its rules.'),
          evaluationError: stringField('An error met while evaluating the rules; the lists may then be incomplete.'),
        },
        { required: ['resourceRules', 'nonResourceRules', 'incomplete'] },
      ),
    },
    ['spec'],
  ),
  strategy: {
    validate: () => [],
    validateUpdate: () => [],
  },
  allowCreateOnUpdate: false,
  protobuf: { message: 'k8s.io.api.authorization.v1.SelfSubjectRulesReview' },
  virtual: {
    async create(review, { services, user }) {
      const namespace = review.spec?.namespace ?? '';
      if (!namespace) throw newBadRequest('no namespace on request');
      // Upstream answers with a new object: the spec is not echoed.
      return { apiVersion: review.apiVersion, kind: review.kind, metadata: {}, spec: {}, status: await services.rulesFor(user, namespace) };
    },
  },
} satisfies ResourceDefinition<SelfSubjectRulesReview>;
