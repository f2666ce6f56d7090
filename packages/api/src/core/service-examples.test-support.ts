// Service's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

export default {
  group: '',
  kind: 'Service',
  sample: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata,
    spec: {
      type: 'LoadBalancer',
      selector: { app: 'web' },
      ports: [
        { name: 'http', protocol: 'TCP', appProtocol: 'http', port: 80, targetPort: 'http', nodePort: 30080 },
        { name: 'dns', protocol: 'UDP', port: 53, targetPort: 5353, nodePort: 30053 },
      ],
      clusterIP: '10.0.0.20',
      clusterIPs: ['10.0.0.20', 'fd00::20'],
      ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'PreferDualStack',
      externalIPs: ['192.0.2.1'],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      loadBalancerIP: '',
      loadBalancerSourceRanges: ['10.240.0.0/24'],
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 31000,
      publishNotReadyAddresses: true,
      allocateLoadBalancerNodePorts: true,
      loadBalancerClass: 'example.com/lb',
      internalTrafficPolicy: 'Cluster',
    },
    status: {
      loadBalancer: { ingress: [{ ip: '192.0.2.10', hostname: 'lb.example.com', ports: [{ port: 80, protocol: 'TCP', error: 'Pending' }] }] },
      conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1, lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'Ok', message: 'ready' }],
    },
  },
  fixture: {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: meta('web', 'team-a', 'v1'),
    spec: {
      ports: [
        // targetPort as a number and as a name: IntOrString's two forms on the wire.
        { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 },
        { name: 'metrics', protocol: 'TCP', appProtocol: 'http', port: 9090, targetPort: 'metrics' },
      ],
      selector: { app: 'web' },
      clusterIP: '10.0.0.20',
      clusterIPs: ['10.0.0.20'],
      type: 'NodePort',
      sessionAffinity: 'ClientIP',
      externalTrafficPolicy: 'Cluster',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  },
} satisfies KindExamples;
