// SelfSubjectRulesReview's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata } from '../testing/examples.js';

export default {
  group: 'authorization.{domain}',
  kind: 'SelfSubjectRulesReview',
  sample: {
    apiVersion: 'authorization.plat.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata,
    spec: { namespace: 'ns' },
    status: {
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
      evaluationError: 'e',
    },
  },
  fixture: {
    kind: 'SelfSubjectRulesReview',
    apiVersion: 'authorization.plat.io/v1',
    metadata: {},
    spec: { namespace: 'team-a' },
    status: {
      resourceRules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['web-0'] },
        { verbs: ['create'], apiGroups: ['authorization.plat.io'], resources: ['selfsubjectaccessreviews'] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
      incomplete: true,
      evaluationError: 'webhook authorizer does not support rules',
    },
  },
} satisfies KindExamples;
