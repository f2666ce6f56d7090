// ConfigMap's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: '',
  kind: 'ConfigMap',
  sample: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata,
    immutable: true,
    data: { 'app.properties': 'a=b' },
    binaryData: { 'logo.png': 'iVBORw==' },
  },
  fixture: {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: meta('settings', 'team-a', 'v1'),
    immutable: false,
    data: { 'app.properties': 'color=blue\nsize=3\n', empty: '' },
    binaryData: { 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]).toString('base64') },
  },
} satisfies KindExamples;
