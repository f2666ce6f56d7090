import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FeatureGateSet, agentFeatureGates } from './feature-gates.js';

test('feature gates: alpha gates are off and beta gates on by default', () => {
  const gates = FeatureGateSet.of();
  assert.equal(gates.enabled('QOSReserved'), false);
  assert.equal(gates.enabled('GracefulNodeShutdown'), true);
});

test('feature gates: a configuration turns gates on and off, and names the unknown ones', () => {
  const { gates, errors } = FeatureGateSet.of().withOverrides({ QOSReserved: true, GracefulNodeShutdown: false, Teleport: true });
  assert.equal(gates.enabled('QOSReserved'), true);
  assert.equal(gates.enabled('GracefulNodeShutdown'), false);
  assert.deepEqual(errors.map(String), ['featureGates[Teleport]: Invalid value: "Teleport": unrecognized feature gate']);
});

test('feature gates: the starting set can differ from the built-in defaults', () => {
  const start = FeatureGateSet.of(undefined, { NodeSwap: true });
  assert.equal(start.withOverrides(undefined).gates.enabled('NodeSwap'), true);
});

test('feature gates: a locked GA gate cannot be turned off; setting a GA or deprecated gate warns', () => {
  const known = { ...agentFeatureGates, OldThing: { default: false, stage: 'DEPRECATED' as const } };
  const { gates, errors, warnings } = FeatureGateSet.of(known).withOverrides({ CPUManager: false, TopologyManager: true, OldThing: true, NodeSwap: true });
  assert.deepEqual(errors.map(String), ['featureGates[CPUManager]: Invalid value: false: cannot set feature gate CPUManager to false, feature is locked to true']);
  assert.deepEqual(warnings, [
    'Setting GA feature gate TopologyManager=true. It will be removed in a future release.',
    'Setting deprecated feature gate OldThing=true. It will be removed in a future release.',
  ]);
  assert.equal(gates.enabled('CPUManager'), true, 'the locked gate keeps its value');
  assert.equal(gates.enabled('NodeSwap'), true, 'a beta gate is set without a warning');
});
