// LocalSubjectAccessReview's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata } from '../testing/examples.js';

export default {
  group: 'authorization.{domain}',
  kind: 'LocalSubjectAccessReview',
  sample: {
    apiVersion: 'authorization.plat.io/v1',
    kind: 'LocalSubjectAccessReview',
    metadata,
    spec: { resourceAttributes: { namespace: 'ns', verb: 'list', resource: 'roles' }, groups: ['devs'] },
    status: { allowed: true },
  },
  fixture: {
    kind: 'LocalSubjectAccessReview',
    apiVersion: 'authorization.plat.io/v1',
    metadata: { namespace: 'team-a' },
    spec: { resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'pods' }, groups: ['developers'] },
    status: { allowed: false, denied: true, reason: 'forbidden', evaluationError: 'role "x" not found' },
  },
} satisfies KindExamples;
