// Upstream 1.28's defaults (pkg/apis/flowcontrol/v1beta3 and v1beta2 defaults_test.go): each case
// an object as sent and as defaulted, in both versions; and v1beta2's assuredConcurrencyShares going
// to v1beta3's nominalConcurrencyShares and back unchanged (the conversion the stored form rests on).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { priorityLevelToV1beta2, priorityLevelToV1beta3 } from './conversion.js';
import { setFlowSchemaDefaults, setPriorityLevelConfigurationDefaults } from './defaults.js';
import type { FlowSchemaObject, FlowControlVersion, PriorityLevelConfigurationObject } from './types.js';

const meta = { name: 'x' };

test('FlowSchema: matchingPrecedence 0 or absent -> 1000; a set one is kept', () => {
  for (const [spec, want] of [
    [{}, 1000],
    [{ matchingPrecedence: 0 }, 1000],
    [{ matchingPrecedence: 17 }, 17],
  ] as const) {
    const fs: FlowSchemaObject = { metadata: meta, spec: { ...spec } };
    setFlowSchemaDefaults(fs);
    assert.equal(fs.spec?.matchingPrecedence, want);
  }
  const bare: FlowSchemaObject = { metadata: meta };
  setFlowSchemaDefaults(bare);
  assert.deepEqual(bare.spec, { matchingPrecedence: 1000 });
});

const cases: { name: string; limited?: Record<string, unknown>; exempt?: Record<string, unknown>; wantLimited?: Record<string, unknown>; wantExempt?: Record<string, unknown> }[] = [
  {
    name: 'Defaulting for queuing configurations',
    limited: { SHARES: 0, limitResponse: { type: 'Queue', queuing: {} } },
    wantLimited: { SHARES: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } },
  },
  {
    name: 'Defaulting for Reject: shares 0 -> 30 unconditionally (no 1.29 preserve-zero annotation), lendablePercent nil -> 0',
    limited: { SHARES: 0, limitResponse: { type: 'Reject' } },
    wantLimited: { SHARES: 30, lendablePercent: 0, limitResponse: { type: 'Reject' } },
  },
  {
    name: 'Set values are kept',
    limited: { SHARES: 5, lendablePercent: 20, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 2, queues: 3, queueLengthLimit: 4 } } },
    wantLimited: { SHARES: 5, lendablePercent: 20, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 2, queues: 3, queueLengthLimit: 4 } } },
  },
  { name: 'Exempt: nil -> 0 for both fields', exempt: {}, wantExempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  { name: 'Exempt: set values are kept', exempt: { nominalConcurrencyShares: 7, lendablePercent: 10 }, wantExempt: { nominalConcurrencyShares: 7, lendablePercent: 10 } },
];

const named = (value: Record<string, unknown> | undefined, shares: string): Record<string, unknown> | undefined =>
  value && (JSON.parse(JSON.stringify(value).replaceAll('SHARES', shares)) as Record<string, unknown>);

for (const version of ['v1beta3', 'v1beta2'] as FlowControlVersion[]) {
  const shares = version === 'v1beta2' ? 'assuredConcurrencyShares' : 'nominalConcurrencyShares';
  for (const c of cases) {
    test(`PriorityLevelConfiguration ${version}: ${c.name}`, () => {
      const level = { metadata: meta, spec: { type: c.exempt ? 'Exempt' : 'Limited', limited: named(c.limited, shares), exempt: c.exempt && { ...c.exempt } } } as PriorityLevelConfigurationObject;
      setPriorityLevelConfigurationDefaults(level, version);
      assert.deepEqual(level.spec?.limited, named(c.wantLimited, shares));
      assert.deepEqual(level.spec?.exempt, c.wantExempt);
    });
  }
  test(`PriorityLevelConfiguration ${version}: an Exempt level without the exempt struct stays without one`, () => {
    const level: PriorityLevelConfigurationObject = { metadata: meta, spec: { type: 'Exempt' } };
    setPriorityLevelConfigurationDefaults(level, version);
    assert.deepEqual(level.spec, { type: 'Exempt' });
  });
}

test('v1beta2 <-> v1beta3: assuredConcurrencyShares is nominalConcurrencyShares, and back, the rest untouched', () => {
  const v1beta2: PriorityLevelConfigurationObject = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'p', labels: { a: 'b' } },
    spec: { type: 'Limited', limited: { assuredConcurrencyShares: 42, limitResponse: { type: 'Reject' }, lendablePercent: 10, borrowingLimitPercent: 5 } },
    status: { conditions: [{ type: 'T', status: 'True' }] },
  };
  const v1beta3 = priorityLevelToV1beta3(v1beta2);
  assert.deepEqual(v1beta3.spec, { type: 'Limited', limited: { nominalConcurrencyShares: 42, limitResponse: { type: 'Reject' }, lendablePercent: 10, borrowingLimitPercent: 5 } });
  assert.deepEqual(Object.keys(v1beta3.spec!.limited!), ['nominalConcurrencyShares', 'limitResponse', 'lendablePercent', 'borrowingLimitPercent']);
  assert.deepEqual(v1beta3.status, v1beta2.status);
  assert.equal(v1beta2.spec?.limited?.assuredConcurrencyShares, 42, 'the v1beta2 object is not changed');
  assert.deepEqual(priorityLevelToV1beta2(v1beta3), v1beta2);
  // An Exempt level has no shares to rename: both forms are the same.
  const exempt: PriorityLevelConfigurationObject = { metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } };
  assert.deepEqual(priorityLevelToV1beta2(priorityLevelToV1beta3(exempt)), exempt);
  assert.deepEqual(priorityLevelToV1beta3(exempt), exempt);
});
