// Lease's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: 'coordination.{domain}',
  kind: 'Lease',
  sample: {
    apiVersion: 'coordination.plat.io/v1',
    kind: 'Lease',
    metadata,
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2024-05-01T10:00:00.000000Z', renewTime: '2024-05-01T10:00:10.123456Z', leaseTransitions: 2 },
  },
  fixture: {
    kind: 'Lease',
    apiVersion: 'coordination.plat.io/v1',
    metadata: meta('plat-controller-manager', 'kube-system', 'coordination.plat.io/v1'),
    spec: {
      holderIdentity: 'controller-0_5d2f0a4e-0000-4000-8000-000000000004',
      leaseDurationSeconds: 15,
      acquireTime: '2024-05-01T10:00:00.000001Z',
      renewTime: '2024-05-01T10:05:30.123456Z',
      leaseTransitions: 3,
    },
  },
} satisfies KindExamples;
