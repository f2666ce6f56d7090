import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { levelLimits, levelMaxSeats, serverConcurrencyLimit } from './concurrency-limits.js';
import { goRound } from './go-math.js';
import type { PriorityLevelConfiguration } from './types.js';

function limited(name: string, shares: number, lendablePercent: number, borrowingLimitPercent?: number): PriorityLevelConfiguration {
  return {
    metadata: { name },
    spec: {
      type: 'Limited',
      limited: { nominalConcurrencyShares: shares, lendablePercent, borrowingLimitPercent, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } } },
    },
  };
}

// The bootstrap levels' shares and lendable percentages (EXTENSIONS 4.3, upstream's
// bootstrap/default.go and TestBootstrapPriorityLevelConfigurationWithBorrowing).
const bootstrap: PriorityLevelConfiguration[] = [
  limited('system', 30, 33),
  limited('node-high', 40, 25),
  limited('leader-election', 10, 0),
  limited('workload-high', 40, 50),
  limited('workload-low', 100, 90),
  limited('global-default', 20, 50),
  limited('catch-all', 5, 0),
  { metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } } },
];

describe('concurrency limits per level', () => {
  test('the server limit is the two in-flight flags added; a sum that is not positive is refused with upstream\'s message', () => {
    assert.equal(serverConcurrencyLimit(400, 200), 600);
    assert.deepEqual(serverConcurrencyLimit(0, 0), {
      error: 'invalid configuration: MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive',
    });
  });

  test('the bootstrap set at 600: nominal and lendable limits as EXTENSIONS 4.5 works them out', () => {
    const shareSum = 245;
    const got = bootstrap.map((pl) => levelLimits(600, shareSum, pl));
    assert.deepEqual(got.map((l) => l.nominalCL), [74, 98, 25, 98, 245, 49, 13, 0]);
    assert.deepEqual(got.map((l) => l.lendableCL), [24, 25, 0, 49, 221, 25, 0, 0]);
    // No borrowingLimitPercent: each may borrow up to the whole server.
    assert.deepEqual(got.map((l) => l.maxCL), [674, 698, 625, 698, 845, 649, 613, 600]);
    assert.deepEqual(got.map((l) => l.minCL), [50, 73, 25, 49, 24, 24, 13, 0]);
    // A new level starts at nominal − lendable/2 (integer halves).
    assert.deepEqual(got.map((l) => l.initialCL), [62, 86, 25, 74, 135, 37, 13, 0]);
  });

  test('borrowingLimitPercent bounds the borrowing, rounded as Go rounds (half away from zero)', () => {
    const l = levelLimits(100, 10, limited('x', 5, 50, 25));
    assert.deepEqual(l, { nominalCL: 50, lendableCL: 25, borrowingCL: 13, minCL: 25, maxCL: 63, initialCL: 38 });
    assert.equal(goRound(2.5), 3);
    assert.equal(goRound(-2.5), -3);
    assert.equal(goRound(24.5), 25);
  });

  test('Test_GetMaxSeats: max(1, min(ceil(0.15·nominalCL), nominalCL/handSize))', () => {
    const rows: Array<[number, number, number]> = [
      [5, 6, 1],
      [10, 6, 1],
      [15, 6, 2],
      [20, 6, 3],
      [35, 6, 5],
      [100, 6, 15],
      [200, 6, 30],
      [10, 1, 2],
      [100, 20, 5],
    ];
    for (const [nominalCL, handSize, expected] of rows) assert.equal(levelMaxSeats(nominalCL, handSize), expected, `nominalCL=${nominalCL}, handSize=${handSize}`);
  });
});
