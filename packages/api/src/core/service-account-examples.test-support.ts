// ServiceAccount's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: '',
  kind: 'ServiceAccount',
  sample: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata,
    automountServiceAccountToken: false,
    imagePullSecrets: [{ name: 'registry' }],
    secrets: [{ name: 'token', namespace: 'default', kind: 'Secret', apiVersion: 'v1', uid: 'u', resourceVersion: '1', fieldPath: '' }],
  },
  fixture: {
    kind: 'ServiceAccount',
    apiVersion: 'v1',
    metadata: meta('builder', 'team-a', 'v1', {
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '5d2f0a4e-0000-4000-8000-000000000001', controller: true, blockOwnerDeletion: false },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'settings', uid: '5d2f0a4e-0000-4000-8000-000000000002' },
      ],
    }),
    secrets: [{ kind: 'Secret', namespace: 'team-a', name: 'builder-token', uid: 'b1', apiVersion: 'v1', resourceVersion: '9', fieldPath: 'data' }, { name: 'builder-dockercfg' }],
    imagePullSecrets: [{ name: 'registry' }],
    automountServiceAccountToken: false,
  },
} satisfies KindExamples;
