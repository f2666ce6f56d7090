// Secret's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: '',
  kind: 'Secret',
  sample: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata,
    immutable: false,
    data: { password: 'aHVudGVyMg==' },
    stringData: { username: 'admin' },
    type: 'kubernetes.io/basic-auth',
  },
  fixture: {
    kind: 'Secret',
    apiVersion: 'v1',
    metadata: meta('builder-tls', 'team-a', 'v1'),
    immutable: true,
    data: { 'tls.crt': Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64'), 'tls.key': '' },
    type: 'kubernetes.io/tls',
  },
} satisfies KindExamples;
