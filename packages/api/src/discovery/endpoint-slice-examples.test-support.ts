// EndpointSlice's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: 'discovery.{domain}',
  kind: 'EndpointSlice',
  sample: {
    apiVersion: 'discovery.plat.io/v1',
    kind: 'EndpointSlice',
    metadata,
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: ['10.0.0.7'],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: 'web-0',
        targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'u-7', apiVersion: 'v1', resourceVersion: '9', fieldPath: '' },
        deprecatedTopology: { 'example.com/rack': 'r1' },
        nodeName: 'worker-1',
        zone: 'zone-a',
        hints: { forZones: [{ name: 'zone-a' }] },
      },
    ],
    ports: [{ name: 'http', protocol: 'TCP', port: 80, appProtocol: 'http' }],
  },
  fixture: {
    kind: 'EndpointSlice',
    apiVersion: 'discovery.plat.io/v1',
    metadata: meta('shop-x7k2p', 'team-a', 'discovery.plat.io/v1', {
      labels: { 'kubernetes.io/service-name': 'shop', 'endpointslice.kubernetes.io/managed-by': 'team-a.example.com/deployer' },
      generation: 3,
    }),
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: ['10.0.0.7', '10.0.0.17'],
        conditions: { ready: true, serving: true, terminating: false },
        hostname: 'web-0',
        targetRef: { kind: 'Pod', namespace: 'team-a', name: 'web-0', uid: '5d2f0a4e-0000-4000-8000-000000000007' },
        nodeName: 'worker-1',
        zone: 'zone-a',
        hints: { forZones: [{ name: 'zone-a' }, { name: 'zone-b' }] },
      },
      // Conditions Go always writes (a struct), its unset pointers absent; empty strings kept where set.
      { addresses: ['10.0.0.8'], conditions: {}, hostname: '', zone: '' },
    ],
    ports: [
      { name: 'http', protocol: 'TCP', port: 80, appProtocol: 'kubernetes.io/h2c' },
      // A port without a number stands for all ports; its empty name is kept (a pointer).
      { name: '', protocol: 'UDP' },
    ],
  },
} satisfies KindExamples;
