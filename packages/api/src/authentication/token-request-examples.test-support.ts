// TokenRequest's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureCreated as created } from '../testing/examples.js';

export default {
  group: 'authentication.{domain}',
  kind: 'TokenRequest',
  sample: {
    apiVersion: 'authentication.plat.io/v1',
    kind: 'TokenRequest',
    metadata,
    spec: { audiences: ['api'], expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: 'u-3' } },
    status: { token: 't', expirationTimestamp: '2024-05-01T11:00:00Z' },
  },
  fixture: {
    kind: 'TokenRequest',
    apiVersion: 'authentication.plat.io/v1',
    metadata: { name: 'builder', namespace: 'team-a', creationTimestamp: created },
    spec: {
      audiences: ['https://plat.default.svc', 'vault'],
      expirationSeconds: 3600,
      boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: '5d2f0a4e-0000-4000-8000-000000000003' },
    },
    status: { token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', expirationTimestamp: '2024-05-01T11:00:00Z' },
  },
} satisfies KindExamples;
