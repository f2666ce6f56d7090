import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Machine } from './machine.js';
import { defaultLabels, nodeConditions, nodeStatus, nodeToRegister, statusChanged, type NodeFacts } from './node-object.js';

const machine: Machine = {
  hostname: 'host-1', cpus: 2, memoryBytes: 4 * 2 ** 30, rootFsBytes: undefined, machineID: 'm', systemUUID: 's', bootID: 'b',
  kernelVersion: '6.1', osImage: 'Debian', operatingSystem: 'linux', architecture: 'arm64', internalIP: '10.0.0.7',
};
const facts = (domain = 'plat.io', extra: Partial<NodeFacts> = {}): NodeFacts => ({ name: 'worker-1', domain, machine, port: 10250, maxPods: 110, ...extra });

test('labels: hostname, OS and architecture under the domain (kubernetes.io under k8s.io)', () => {
  assert.deepEqual(defaultLabels(facts()), {
    'beta.plat.io/arch': 'arm64', 'beta.plat.io/os': 'linux', 'plat.io/arch': 'arm64', 'plat.io/hostname': 'host-1', 'plat.io/os': 'linux',
  });
  assert.equal(defaultLabels(facts('k8s.io'))['kubernetes.io/hostname'], 'host-1');
});

test('registration: taints from registerWithTaints, providerID, and the first status', () => {
  const node = nodeToRegister(facts('plat.io', { providerID: 'plat://1', registerWithTaints: [{ key: 'dedicated', value: 'edge', effect: 'NoSchedule' }] }), []);
  assert.deepEqual(node.spec, { providerID: 'plat://1', taints: [{ key: 'dedicated', value: 'edge', effect: 'NoSchedule' }] });
  assert.equal(node.status?.capacity?.pods, '110');
  assert.deepEqual(node.status?.addresses, [{ type: 'InternalIP', address: '10.0.0.7' }, { type: 'Hostname', address: 'host-1' }]);
  assert.deepEqual(node.status?.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
  assert.equal(node.status?.nodeInfo?.containerRuntimeVersion, 'simulated://0.1.0');
});

test('conditions: a transition time kept while the status holds, moved when it changes; heartbeats always now', () => {
  const first = nodeConditions('k8s.io', { ready: true }, undefined, '2024-05-01T10:00:00Z');
  assert.deepEqual(first.map((c) => `${c.type}=${c.status}`), ['MemoryPressure=False', 'DiskPressure=False', 'PIDPressure=False', 'Ready=True']);
  assert.equal(first[3]!.reason, 'KubeletReady');
  const later = nodeConditions('k8s.io', { ready: true }, first, '2024-05-01T10:00:10Z');
  assert.equal(later[3]!.lastTransitionTime, '2024-05-01T10:00:00Z');
  assert.equal(later[3]!.lastHeartbeatTime, '2024-05-01T10:00:10Z');
  // A controller marked the node Unknown: True again is a transition.
  const marked = later.map((c) => (c.type === 'Ready' ? { ...c, status: 'Unknown', lastTransitionTime: '2024-05-01T10:01:00Z' } : c));
  const back = nodeConditions('plat.io', { ready: true }, marked, '2024-05-01T10:02:00Z');
  assert.deepEqual([back[3]!.status, back[3]!.reason, back[3]!.lastTransitionTime], ['True', 'AgentReady', '2024-05-01T10:02:00Z']);
  const down = nodeConditions('plat.io', { ready: false, message: 'node is shutting down' }, back, '2024-05-01T10:03:00Z');
  assert.deepEqual([down[3]!.status, down[3]!.reason, down[3]!.message], ['False', 'AgentNotReady', 'node is shutting down']);
});

test('statusChanged: heartbeats alone are no change', () => {
  const a = nodeStatus(facts(), nodeConditions('plat.io', { ready: true }, undefined, '2024-05-01T10:00:00Z'));
  const b = nodeStatus(facts(), nodeConditions('plat.io', { ready: true }, a.conditions, '2024-05-01T10:00:10Z'));
  assert.equal(statusChanged(a, b), false);
  const c = nodeStatus(facts(), nodeConditions('plat.io', { ready: false, message: 'x' }, a.conditions, '2024-05-01T10:00:10Z'));
  assert.equal(statusChanged(a, c), true);
  assert.equal(statusChanged(undefined, a), true);
});
