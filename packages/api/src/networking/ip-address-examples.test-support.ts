// IPAddress's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: 'networking.{domain}',
  kind: 'IPAddress',
  sample: {
    apiVersion: 'networking.plat.io/v1alpha1',
    kind: 'IPAddress',
    metadata: { ...metadata, name: '10.0.0.1', namespace: undefined },
    spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'kubernetes', uid: 'u' } },
  },
  fixture: {
    kind: 'IPAddress',
    apiVersion: 'networking.plat.io/v1alpha1',
    metadata: meta('2001:db8::1', undefined, 'networking.plat.io/v1alpha1'),
    spec: { parentRef: { resource: 'services', namespace: 'default', name: 'kubernetes', uid: '7e0c5f9a-0000-4000-8000-0000000000aa' } },
  },
} satisfies KindExamples;
