// Node's examples (testing/examples.ts): a sample for its schema, a fixture for the Protobuf codec.
import { type KindExamples, sampleMetadata as metadata, fixtureMeta as meta } from '../testing/examples.js';

const nodeInfo = {
  machineID: 'm',
  systemUUID: 's',
  bootID: 'b',
  kernelVersion: '6.1.0',
  osImage: 'Debian GNU/Linux 12',
  containerRuntimeVersion: 'simulated://0.1.0',
  kubeletVersion: 'v1.28.0',
  kubeProxyVersion: '',
  operatingSystem: 'linux',
  architecture: 'amd64',
};

export default {
  group: '',
  kind: 'Node',
  sample: {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { ...metadata, namespace: undefined },
    spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'p', unschedulable: true, taints: [{ key: 'k', value: 'v', effect: 'NoSchedule', timeAdded: '2024-05-01T10:00:00Z' }] },
    status: {
      capacity: { cpu: '2', pods: 110 },
      allocatable: { cpu: '1' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2024-05-01T10:00:00Z', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'r', message: 'm' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
      images: [{ names: ['a'], sizeBytes: 1 }],
      volumesInUse: ['v'],
      volumesAttached: [{ name: 'v', devicePath: '/dev/x' }],
    },
  },
  fixture: {
    kind: 'Node',
    apiVersion: 'v1',
    metadata: meta('worker-1', undefined, 'v1'),
    spec: {
      podCIDR: '10.0.0.0/24',
      podCIDRs: ['10.0.0.0/24', 'fd00::/64'],
      providerID: 'plat://worker-1',
      unschedulable: true,
      taints: [
        { key: 'node.plat.io/unreachable', effect: 'NoExecute', timeAdded: '2024-05-01T10:00:00Z' },
        { key: 'dedicated', value: 'edge', effect: 'NoSchedule' },
      ],
    },
    status: {
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      allocatable: { cpu: '3900m', memory: '7800Mi', pods: '110' },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastHeartbeatTime: '2024-05-01T10:00:00Z',
          lastTransitionTime: '2024-05-01T09:00:00Z',
          reason: 'AgentReady',
          message: 'agent is posting ready status',
        },
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.7' },
        { type: 'Hostname', address: 'worker-1' },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo,
      images: [{ names: ['registry/app:1'], sizeBytes: 1234567 }],
      volumesInUse: ['v'],
      volumesAttached: [{ name: 'v', devicePath: '/dev/sdb' }],
    },
  },
} satisfies KindExamples;
