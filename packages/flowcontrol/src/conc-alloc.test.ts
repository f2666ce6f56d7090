import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeConcurrencyAllocation, MIN_TARGET, type AllocItem } from './conc-alloc.js';

// A small seeded generator (mulberry32): the cases are random but the same on every run.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const intn = (r: () => number, n: number) => Math.floor(r() * n);

/** n floats in [0, x) summing to x, as upstream's partition64. */
function partition(r: () => number, n: number, x: number): number[] {
  const divs = Array.from({ length: n - 1 }, () => r()).sort((a, b) => a - b);
  const parts: number[] = [];
  let last = 0;
  for (const div of divs) {
    parts.push((div - last) * x);
    last = div;
  }
  parts.push((1 - last) * x);
  return parts;
}

const relDiff = (a: number, b: number) => {
  const den = Math.max(Math.abs(a), Math.abs(b));
  return den === 0 ? 0 : Math.abs(a - b) / den;
};
const FP_SLACK = 1e-10;

describe('computeConcurrencyAllocation (upstream conc_alloc_test.go TestConcAlloc)', () => {
  test('10,000 random problems, bound from below, from above and not set by bounds: the sum is met and each level is proportional or at a bound', () => {
    const r = rng(1234567890);
    const styles = new Map<string, number>();
    for (let trial = 0; trial < 10_000; trial++) {
      const probLen = [0, 1, 2, 3, 4, 6, 9][intn(r, 7)]!;
      let classes: AllocItem[] = [];
      let requiredSum = 0;
      let style = 'empty';
      if (probLen > 0) {
        const pick = intn(r, 20);
        if (pick === 0) {
          style = 'bound from below';
          requiredSum = intn(r, probLen * 3);
          classes = partition(r, probLen, requiredSum).map((x) => ({ lowerBound: x, target: x + 2 * r(), upperBound: x + 3 * r() }));
        } else if (pick === 1) {
          style = 'bound from above';
          requiredSum = intn(r, probLen * 3) + 1;
          classes = partition(r, probLen, requiredSum).map((x) => {
            const lowerBound = x * Math.max(0, 1.25 * r() - 1);
            return { upperBound: x, lowerBound, target: lowerBound + r() };
          });
        } else {
          style = 'not-set-by-bounds';
          for (let j = 0; j < probLen; j++) {
            const x = Math.max(0, r() * 5 - 1);
            classes.push({ lowerBound: x, target: x + 2 * r(), upperBound: x + 3 * r() });
          }
          const low = classes.reduce((s, c) => s + c.lowerBound, 0);
          const high = classes.reduce((s, c) => s + c.upperBound, 0);
          requiredSum = Math.round(low + (high - low) * r());
        }
      }
      // Sometimes a level with a target of zero.
      while (r() < 0.25) classes.splice(intn(r, classes.length + 1), 0, { target: 0, lowerBound: 0, upperBound: r() + 0.00001 });
      styles.set(style, (styles.get(style) ?? 0) + 1);
      const lowSum = classes.reduce((s, c) => s + c.lowerBound, 0);
      const highSum = classes.reduce((s, c) => s + c.upperBound, 0);
      const expectErr = lowSum - requiredSum > FP_SLACK || requiredSum - highSum > FP_SLACK;
      const got = computeConcurrencyAllocation(requiredSum, classes);
      const where = `trial ${trial} (${style}): requiredSum=${requiredSum} classes=${JSON.stringify(classes)}`;
      if ('error' in got) {
        assert.ok(expectErr, `${where}: unexpected error ${got.error}`);
        continue;
      }
      assert.ok(!expectErr, `${where}: expected an error, got ${JSON.stringify(got)}`);
      const actualSum = got.allocs.reduce((s, a) => s + a, 0);
      assert.ok(relDiff(requiredSum, actualSum) <= FP_SLACK, `${where}: allocations sum to ${actualSum}`);
      for (const [idx, item] of classes.entries()) {
        const alloc = got.fairFrac * Math.max(item.target, MIN_TARGET);
        if (alloc <= item.lowerBound) assert.equal(got.allocs[idx], item.lowerBound, `${where}: item ${idx} should be at its lower bound`);
        else if (alloc >= item.upperBound) assert.equal(got.allocs[idx], item.upperBound, `${where}: item ${idx} should be at its upper bound`);
        else assert.ok(relDiff(alloc, got.allocs[idx]!) <= FP_SLACK, `${where}: item ${idx} should be proportional to its target`);
      }
    }
    // Every style was exercised.
    assert.deepEqual([...styles.keys()].sort(), ['bound from above', 'bound from below', 'empty', 'not-set-by-bounds']);
  });

  test('a worked case: 10 seats, targets 2 and 8, the second capped at 6', () => {
    const got = computeConcurrencyAllocation(10, [
      { target: 2, lowerBound: 1, upperBound: 10 },
      { target: 8, lowerBound: 2, upperBound: 6 },
    ]);
    // f·8 would exceed 6 at f = 0.75, so the second holds 6 and the first takes the remaining 4 (f = 2).
    assert.deepEqual(got, { allocs: [4, 6], fairFrac: 2 });
  });

  test('errors: a negative sum, bounds out of order, bounds that cannot meet the sum', () => {
    assert.deepEqual(computeConcurrencyAllocation(-1, []), { error: 'negative sums are not supported' });
    assert.deepEqual(computeConcurrencyAllocation(1, [{ target: 1, lowerBound: 2, upperBound: 3 }]), {
      error: 'target 0 is 1, which is below its lower bound of 2',
    });
    assert.deepEqual(computeConcurrencyAllocation(10, [{ target: 1, lowerBound: 0, upperBound: 3 }]), {
      error: 'upper bounds sum to 3, which is lower than the required sum of 10',
    });
  });
});
