import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillRandom, randomBytesFromPool } from './random-pool.js';

test('pooled random bytes are never handed out twice, across refills and for every length', () => {
  const seen = new Set<string>();
  // 12-byte nonces, 16-byte IVs, 24-byte secretbox nonces: several refills of the 4 KiB pool.
  for (const length of [12, 16, 24]) {
    for (let i = 0; i < 2000; i++) {
      const bytes = randomBytesFromPool(length).toString('hex');
      assert.equal(bytes.length, length * 2);
      assert.ok(!seen.has(bytes), 'a value repeated');
      seen.add(bytes);
    }
  }
});

test('fillRandom writes where it is told, and a request larger than the pool is served too', () => {
  const target = Buffer.alloc(10_000);
  fillRandom(target, 100, 8000);
  assert.ok(target.subarray(0, 100).every((byte) => byte === 0));
  assert.ok(target.subarray(8100).every((byte) => byte === 0));
  // 8,000 random bytes are not all zero (the chance of that is nil).
  assert.ok(target.subarray(100, 8100).some((byte) => byte !== 0));
  const small = Buffer.alloc(20);
  fillRandom(small, 4, 12);
  assert.deepEqual([...small.subarray(0, 4), ...small.subarray(16)], [0, 0, 0, 0, 0, 0, 0, 0]);
});
