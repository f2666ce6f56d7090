// LimitRange's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: '',
  kind: 'LimitRange',
  sample: {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata,
    spec: { limits: [{ type: 'Container', max: { cpu: '2', memory: 1073741824 }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' }, maxLimitRequestRatio: { cpu: 4 } }] },
  },
  fixture: {
    kind: 'LimitRange',
    apiVersion: 'v1',
    metadata: meta('limits', 'team-a', 'v1'),
    spec: {
      limits: [
        {
          type: 'Container',
          max: { cpu: '2', memory: '1Gi' },
          min: { cpu: '100m', memory: '4Mi' },
          default: { cpu: '500m', memory: '256Mi' },
          defaultRequest: { cpu: '250m', memory: '128Mi' },
          maxLimitRequestRatio: { cpu: '4' },
        },
        { type: 'PersistentVolumeClaim', max: { storage: '10Gi' }, min: { storage: '1Gi' } },
      ],
    },
  },
} satisfies KindExamples;
