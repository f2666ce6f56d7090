// Namespace's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: '',
  kind: 'Namespace',
  sample: {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata,
    spec: { finalizers: ['plat'] },
    status: { phase: 'Active', conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Ok', message: '' }] },
  },
  fixture: {
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: meta('team-a', undefined, 'v1', {
      labels: { 'plat.io/metadata.name': 'team-a' },
      deletionTimestamp: '2024-05-02T08:00:00Z',
      deletionGracePeriodSeconds: 0,
      finalizers: ['example.com/cleanup'],
    }),
    spec: { finalizers: ['plat'] },
    status: {
      phase: 'Terminating',
      conditions: [
        {
          type: 'NamespaceDeletionContentFailure',
          status: 'False',
          lastTransitionTime: '2024-05-02T08:00:01Z',
          reason: 'ContentDeleted',
          message: 'All content successfully deleted, may be waiting on finalization',
        },
        { type: 'NamespaceFinalizersRemaining', status: 'True' },
      ],
    },
  },
} satisfies KindExamples;
