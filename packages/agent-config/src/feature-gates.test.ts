import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FeatureGateSet } from './feature-gates.js';

test('feature gates: alpha gates are off and beta gates on by default', () => {
  const gates = new FeatureGateSet();
  assert.equal(gates.enabled('QOSReserved'), false);
  assert.equal(gates.enabled('GracefulNodeShutdown'), true);
});

test('feature gates: a configuration turns gates on and off, and names the unknown ones', () => {
  const { gates, errors } = new FeatureGateSet().withOverrides({ QOSReserved: true, GracefulNodeShutdown: false, Teleport: true });
  assert.equal(gates.enabled('QOSReserved'), true);
  assert.equal(gates.enabled('GracefulNodeShutdown'), false);
  assert.deepEqual(errors.map(String), ['featureGates[Teleport]: Invalid value: "Teleport": unrecognized feature gate']);
});

test('feature gates: the starting set can differ from the built-in defaults', () => {
  const start = new FeatureGateSet(undefined, { NodeSwap: true });
  assert.equal(start.withOverrides(undefined).gates.enabled('NodeSwap'), true);
});
