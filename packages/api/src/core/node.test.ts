import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, k8s, messages, plat, update } from '../testing/harness.js';
import { nodeDefinition, nodeStatusText, type Node, type NodeSpec, type NodeStatus } from './node.js';

const node = (spec?: NodeSpec, status?: NodeStatus, extra: Partial<Node['metadata']> = {}): Node => ({
  metadata: { name: 'worker-1', ...extra },
  ...(spec && { spec }),
  ...(status && { status }),
});

const validCases: { name: string; spec?: NodeSpec; status?: NodeStatus }[] = [
  { name: 'no spec or status' },
  { name: 'taints of each effect', spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoExecute' }, { key: 'b/c', value: 'v', effect: 'PreferNoSchedule' }] } },
  { name: 'one IPv4 pod CIDR', spec: { podCIDRs: ['10.0.0.0/24'] } },
  { name: 'dual-stack pod CIDRs', spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } },
  { name: 'capacity and allocatable', status: { capacity: { cpu: '2', memory: '4Gi', pods: '110' }, allocatable: { cpu: '1500m', memory: '3Gi', pods: '110' } } },
];
for (const c of validCases) {
  test(`node validate: ${c.name} is valid`, () => assert.deepEqual(messages(create(nodeDefinition, node(c.spec, c.status)).errors), []));
}

const invalidCases: { name: string; spec?: NodeSpec; status?: NodeStatus; annotations?: Record<string, string>; want: string[] }[] = [
  {
    name: 'a taint without effect and with a bad key',
    spec: { taints: [{ key: 'a b', effect: '' }] },
    want: [
      "metadata.taints[0].key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'metadata.taints[0].effect: Required value',
    ],
  },
  {
    name: 'an unknown taint effect',
    spec: { taints: [{ key: 'a', effect: 'NoScheduleNoAdmit' }] },
    want: ['metadata.taints[0].effect: Unsupported value: "NoScheduleNoAdmit": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'],
  },
  {
    name: 'two taints with one key and effect',
    spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', value: 'x', effect: 'NoSchedule' }] },
    want: ['metadata.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"x", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair'],
  },
  {
    name: 'a pod CIDR that is no CIDR',
    spec: { podCIDRs: ['10.0.0.0'] },
    want: ['spec.podCIDRs[0]: Invalid value: []string{"10.0.0.0"}: must be valid CIDR'],
  },
  {
    name: 'two IPv4 pod CIDRs',
    spec: { podCIDRs: ['10.0.0.0/24', '10.0.0.0/24'] },
    want: [
      'spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "10.0.0.0/24"}: may specify no more than one CIDR for each IP family',
      'spec.podCIDRs[1]: Duplicate value: "10.0.0.0/24"',
    ],
  },
  {
    name: 'negative capacity and a fraction of a pod',
    status: { capacity: { cpu: '-1', pods: '1500m' } },
    want: [
      'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
      'status.capacity.pods: Invalid value: 1500m: must be an integer',
      // Allocatable defaults to capacity, and is checked as well.
      'status.allocatable.cpu: Invalid value: "-1": must be greater than or equal to 0',
      'status.allocatable.pods: Invalid value: 1500m: must be an integer',
    ],
  },
  {
    name: 'taints in the alpha annotation',
    annotations: { 'scheduler.alpha.plat.io/taints': '[{"key":"a","effect":"Never"}]' },
    want: ['metadata.annotations.scheduler.alpha.plat.io/taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'],
  },
];
for (const c of invalidCases) {
  test(`node validate: ${c.name}`, () => {
    const object = node(c.spec, c.status, c.annotations ? { annotations: c.annotations } : {});
    assert.deepEqual(messages(create(nodeDefinition, object).errors), c.want);
  });
}

test('node defaults: allocatable from capacity, and the structs Go always writes', () => {
  const { object } = create(nodeDefinition, node(undefined, { capacity: { cpu: '2' } }));
  assert.deepEqual(object.spec, {});
  assert.deepEqual(object.status?.allocatable, { cpu: '2' });
  assert.deepEqual(object.status?.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  assert.equal(object.status?.nodeInfo?.kubeletVersion, '');
  assert.equal(Object.keys(object.status?.nodeInfo ?? {}).length, 10);
});

test('node create: status is kept, the deprecated configuration dropped', () => {
  const input = node({ configSource: { configMap: { name: 'c' } } }, { phase: 'Running', config: { error: 'x' } });
  const { object } = create(nodeDefinition, input);
  assert.equal(object.status?.phase, 'Running');
  assert.equal(object.spec?.configSource, undefined);
  assert.equal(object.status?.config, undefined);
});

const updateCases: { name: string; old: NodeSpec; spec: NodeSpec; want: string[] }[] = [
  { name: 'pod CIDRs set for the first time', old: {}, spec: { podCIDRs: ['10.0.0.0/24'] }, want: [] },
  {
    name: 'pod CIDRs changed',
    old: { podCIDRs: ['10.0.0.0/24'] },
    spec: { podCIDRs: ['10.0.1.0/24'] },
    want: ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid'],
  },
  { name: 'providerID set for the first time', old: {}, spec: { providerID: 'plat://a' }, want: [] },
  {
    name: 'providerID changed',
    old: { providerID: 'plat://a' },
    spec: { providerID: 'plat://b' },
    want: ['spec.providerID: Forbidden: node updates may not change providerID except from "" to valid'],
  },
  { name: 'externalID changed', old: { externalID: 'a' }, spec: { externalID: 'b' }, want: ['spec.externalID: Forbidden: may not be updated'] },
  { name: 'taints and unschedulable changed', old: {}, spec: { unschedulable: true, taints: [{ key: 'a', effect: 'NoSchedule' }] }, want: [] },
];
for (const c of updateCases) {
  test(`node update: ${c.name}`, () => assert.deepEqual(messages(update(nodeDefinition, node(c.spec), node(c.old)).errors), c.want));
}

test('node update: status is kept from the stored node; nodes/status keeps the spec', () => {
  const old = node({ unschedulable: false }, { phase: 'Running' });
  const { object } = update(nodeDefinition, node({ unschedulable: true }, { phase: 'Pending' }), old);
  assert.equal(object.status?.phase, 'Running');
  assert.equal(object.spec?.unschedulable, true);
  const status = nodeDefinition.subresources.status;
  const merged = status.merge(node({ unschedulable: true }, { phase: 'Pending' }), old);
  assert.equal(merged.spec?.unschedulable, false);
  assert.equal(merged.status?.phase, 'Pending');
});

test('nodes/status: duplicate addresses are refused', () => {
  const old = node({}, {});
  const next = node({}, { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] });
  assert.deepEqual(messages(nodeDefinition.subresources.status.validateUpdate(next, old, plat)), [
    'status.addresses[1]: Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.1"}',
  ]);
});

const column = (name: string) => nodeDefinition.tableColumns.find((c) => c.name === name)!;

const statusCases: { name: string; object: Node; want: string }[] = [
  { name: 'no Ready condition', object: node(), want: 'Unknown' },
  { name: 'Ready True', object: node({}, { conditions: [{ type: 'Ready', status: 'True' }] }), want: 'Ready' },
  { name: 'Ready Unknown', object: node({}, { conditions: [{ type: 'Ready', status: 'Unknown' }] }), want: 'NotReady' },
  { name: 'cordoned', object: node({ unschedulable: true }, { conditions: [{ type: 'Ready', status: 'True' }] }), want: 'Ready,SchedulingDisabled' },
];
for (const c of statusCases) test(`node STATUS column: ${c.name}`, () => assert.equal(nodeStatusText(c.object), c.want));

test('node columns: NAME STATUS ROLES AGE VERSION, then the wide ones', () => {
  assert.deepEqual(
    nodeDefinition.tableColumns.filter((c) => c.priority === 0).map((c) => c.name),
    ['Name', 'Status', 'Roles', 'Age', 'Version'],
  );
  assert.deepEqual(
    nodeDefinition.tableColumns.filter((c) => c.priority === 1).map((c) => c.name),
    ['Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime'],
  );
  const labelled = node(undefined, undefined, { labels: { 'node-role.plat.io/control-plane': '', 'plat.io/role': 'edge', 'node-role.kubernetes.io/x': '' } });
  assert.equal(column('Roles').value(labelled, plat), 'control-plane,edge');
  assert.equal(column('Roles').value(labelled, k8s), 'x');
  assert.equal(column('Roles').value(node(), plat), '<none>');
  assert.equal(column('OS-Image').value(node(), plat), '<unknown>');
  assert.equal(column('Internal-IP').value(node({}, { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] }), plat), '10.0.0.1');
});

test('node selectable fields: spec.unschedulable', () => {
  assert.deepEqual(nodeDefinition.selectableFields(node()), { 'spec.unschedulable': 'false' });
  assert.deepEqual(nodeDefinition.selectableFields(node({ unschedulable: true })), { 'spec.unschedulable': 'true' });
});
