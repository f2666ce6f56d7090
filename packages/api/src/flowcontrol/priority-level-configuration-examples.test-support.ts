// PriorityLevelConfiguration's examples (testing/examples.ts): a sample for its schema, a fixture for
// the Protobuf codec; v1beta2 has its own, its Limited shares being assuredConcurrencyShares.
import type { KubeObject } from '@plat/registry';
import { type KindExamples, fixtureMeta as meta, fixtureCreated as created } from '../testing/examples.js';

const V1BETA3 = 'flowcontrol.apiserver.plat.io/v1beta3';
const V1BETA2 = 'flowcontrol.apiserver.plat.io/v1beta2';

const sample = (apiVersion: string, shares: string): KubeObject => ({
  apiVersion,
  kind: 'PriorityLevelConfiguration',
  metadata: { name: 'workload-low', generation: 1 },
  spec: {
    type: 'Limited',
    limited: {
      [shares]: 100,
      limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
      lendablePercent: 90,
      borrowingLimitPercent: 200,
    },
  },
  status: { conditions: [{ type: 'ConcurrencyShared', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'R', message: 'm' }] },
});

/**
 * Every field set, a Limited level's and an Exempt level's together (the codec does not judge the
 * union), lendablePercent 0 among them (a pointer Go writes when set), and a condition.
 */
const fixture = (apiVersion: string, shares: string): Record<string, unknown> => ({
  kind: 'PriorityLevelConfiguration',
  apiVersion,
  metadata: meta('workload-high', undefined, apiVersion, { generation: 2 }),
  spec: {
    type: 'Limited',
    limited: {
      [shares]: 40,
      limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
      lendablePercent: 0,
      borrowingLimitPercent: 150,
    },
    exempt: { nominalConcurrencyShares: 0, lendablePercent: 10 },
  },
  status: { conditions: [{ type: 'ConcurrencyShared', status: 'True', lastTransitionTime: created, reason: 'Borrowing', message: 'lends 0 seats' }] },
});

export default {
  group: 'flowcontrol.apiserver.{domain}',
  kind: 'PriorityLevelConfiguration',
  sample: sample(V1BETA3, 'nominalConcurrencyShares'),
  fixture: fixture(V1BETA3, 'nominalConcurrencyShares'),
  versions: { v1beta2: { sample: sample(V1BETA2, 'assuredConcurrencyShares'), fixture: fixture(V1BETA2, 'assuredConcurrencyShares') } },
} satisfies KindExamples;
