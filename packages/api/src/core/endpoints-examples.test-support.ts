// Endpoints' examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: '',
  kind: 'Endpoints',
  sample: {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata,
    subsets: [
      {
        addresses: [{ ip: '10.0.0.7', hostname: 'web-0', nodeName: 'worker-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'u-7', apiVersion: 'v1', resourceVersion: '9', fieldPath: '' } }],
        notReadyAddresses: [{ ip: '2001:db8::7' }],
        ports: [{ name: 'http', port: 80, protocol: 'TCP', appProtocol: 'http' }],
      },
    ],
  },
  fixture: {
    kind: 'Endpoints',
    apiVersion: 'v1',
    metadata: meta('shop', 'team-a', 'v1'),
    subsets: [
      {
        addresses: [
          { ip: '10.0.0.7', hostname: 'web-0', nodeName: 'worker-1', targetRef: { kind: 'Pod', namespace: 'team-a', name: 'web-0', uid: '5d2f0a4e-0000-4000-8000-000000000007' } },
          // Go writes ip always, and keeps a nodeName that is set, even empty (a pointer).
          { ip: '10.0.0.8', nodeName: '' },
        ],
        notReadyAddresses: [{ ip: 'fd00::9' }],
        ports: [
          { name: 'http', port: 80, protocol: 'TCP', appProtocol: 'kubernetes.io/h2c' },
          { name: 'dns', port: 53, protocol: 'UDP', appProtocol: '' },
        ],
      },
      { addresses: [{ ip: '10.0.1.1' }], ports: [{ port: 8443, protocol: 'SCTP' }] },
    ],
  },
} satisfies KindExamples;
