// SelfSubjectAccessReview's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata } from '../testing/examples.js';

export default {
  group: 'authorization.{domain}',
  kind: 'SelfSubjectAccessReview',
  sample: {
    apiVersion: 'authorization.plat.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata,
    spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    status: { allowed: true, reason: 'RBAC: allowed' },
  },
  fixture: {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.plat.io/v1',
    metadata: {},
    spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    status: { allowed: false },
  },
} satisfies KindExamples;
