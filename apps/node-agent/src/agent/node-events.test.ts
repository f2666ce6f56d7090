import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeCondition } from '@plat/api';
import type { EventRecorder } from '@plat/client';
import { NodeEvents, agentComponent, conditionEvents } from './node-events.js';
import { nodeConditions } from './node-object.js';

const at = '2024-05-01T10:00:00Z';
const ready = nodeConditions('k8s.io', { ready: true }, undefined, at);
const notReady = nodeConditions('k8s.io', { ready: false, message: 'node is shutting down' }, ready, at);
const unknown = (conditions: NodeCondition[]): NodeCondition[] => conditions.map((c) => ({ ...c, status: 'Unknown', reason: 'NodeStatusUnknown' }));
const withStatus = (conditions: NodeCondition[], type: string, status: string): NodeCondition[] => conditions.map((c) => (c.type === type ? { ...c, status } : c));

const cases: { name: string; before: NodeCondition[] | undefined; after: NodeCondition[]; reasons: string[] }[] = [
  {
    name: 'registration: every condition is new',
    before: undefined,
    after: ready,
    reasons: ['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady'],
  },
  { name: 'nothing changed but heartbeats', before: ready, after: nodeConditions('k8s.io', { ready: true }, ready, '2024-05-01T10:01:00Z'), reasons: [] },
  { name: 'shutting down: Ready turns False', before: ready, after: notReady, reasons: ['NodeNotReady'] },
  {
    name: 'back after the node lifecycle controller marked every condition Unknown',
    before: unknown(ready),
    after: ready,
    reasons: ['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady'],
  },
  { name: 'Unknown is not the agent’s own: nothing recorded', before: ready, after: unknown(ready), reasons: [] },
  {
    name: 'pressure appears (True) and goes',
    before: ready,
    after: withStatus(withStatus(withStatus(ready, 'MemoryPressure', 'True'), 'DiskPressure', 'True'), 'PIDPressure', 'True'),
    reasons: ['NodeHasInsufficientMemory', 'NodeHasDiskPressure', 'NodeHasInsufficientPID'],
  },
  { name: 'a condition missing before (an adopted Node without it)', before: ready.filter((c) => c.type !== 'PIDPressure'), after: ready, reasons: ['NodeHasSufficientPID'] },
];

for (const { name, before, after, reasons } of cases) {
  test(`condition events: ${name}`, () => {
    assert.deepEqual(conditionEvents(before, after), reasons);
  });
}

test("node events: upstream's reference (the name as uid, no namespace), reasons and messages", async () => {
  const recorded: unknown[][] = [];
  let flushed = false;
  let stopped = false;
  const recorder = {
    event: (...args: unknown[]) => recorded.push(args),
    flush: async () => void (flushed = true),
    stop: () => void (stopped = true),
  } as unknown as EventRecorder;
  const events = new NodeEvents(recorder, 'worker-1', agentComponent('k8s.io'));
  events.starting();
  events.conditionsChanged(ready, notReady);
  events.shuttingDown();
  await events.close(1000);
  const ref = { kind: 'Node', name: 'worker-1', uid: 'worker-1' };
  assert.deepEqual(recorded, [
    [ref, 'Normal', 'Starting', 'Starting kubelet.'],
    [ref, 'Normal', 'NodeNotReady', 'Node worker-1 status is now: NodeNotReady'],
    [ref, 'Normal', 'Shutdown', 'Shutdown manager detected shutdown event'],
  ]);
  assert.deepEqual([flushed, stopped], [true, true]);
  assert.equal(agentComponent('plat.io'), 'plat-agent');
});

test('node events: closing waits for the queue at most its timeout', async () => {
  let stopped = false;
  const recorder = { flush: () => new Promise(() => undefined), stop: () => void (stopped = true) } as unknown as EventRecorder;
  const started = Date.now();
  await new NodeEvents(recorder, 'n', 'plat-agent').close(50);
  assert.ok(Date.now() - started < 1000);
  assert.equal(stopped, true);
});
