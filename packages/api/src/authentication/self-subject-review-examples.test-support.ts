// SelfSubjectReview's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureCreated as created } from '../testing/examples.js';

const userInfo: Record<string, unknown> = {
  username: 'system:serviceaccount:team-a:builder',
  uid: '0f6c1b9e-4a1d-4c5e-9f3a-builder00000',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
  extra: { 'authentication.plat.io/pod-name': ['web-0'], 'authentication.plat.io/credential-id': ['JTI=1b2c'] },
};

export default {
  group: 'authentication.{domain}',
  kind: 'SelfSubjectReview',
  sample: {
    apiVersion: 'authentication.plat.io/v1',
    kind: 'SelfSubjectReview',
    metadata,
    status: { userInfo: { username: 'alice', uid: 'u', groups: ['g'], extra: { k: ['v'] } } },
  },
  fixture: {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.plat.io/v1',
    metadata: { creationTimestamp: created },
    status: { userInfo },
  },
} satisfies KindExamples;
