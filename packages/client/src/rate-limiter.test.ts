import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket } from './rate-limiter.js';

const clock = () => {
  let now = 0;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

test('token bucket: a burst at once, then one token every 1/qps seconds, each waiter its own slot', () => {
  const time = clock();
  const bucket = new TokenBucket({ qps: 10, burst: 3 }, time.now);
  assert.deepEqual([bucket.reserve(), bucket.reserve(), bucket.reserve()], [0, 0, 0]);
  // The fourth and fifth wait 100 ms and 200 ms.
  assert.equal(bucket.reserve(), 100);
  assert.equal(Math.round(bucket.reserve()), 200);
  time.advance(1000);
  // A quiet second refills to the burst, not beyond it.
  assert.deepEqual([bucket.reserve(), bucket.reserve(), bucket.reserve()], [0, 0, 0]);
  assert.ok(bucket.reserve() > 0);
});

test('token bucket: qps at or below 0 limits nothing', async () => {
  const bucket = new TokenBucket({ qps: 0, burst: 1 });
  assert.equal(bucket.limited, false);
  for (let i = 0; i < 100; i++) assert.equal(bucket.reserve(), 0);
  await bucket.take();
});

test('token bucket: take waits for its token', async () => {
  const bucket = new TokenBucket({ qps: 50, burst: 1 });
  await bucket.take();
  const start = performance.now();
  await bucket.take();
  assert.ok(performance.now() - start >= 15, 'the second take waited about 20 ms');
});

test('token bucket: an aborted wait rejects', async () => {
  const bucket = new TokenBucket({ qps: 1, burst: 1 });
  await bucket.take();
  const controller = new AbortController();
  const waiting = bucket.take(controller.signal);
  controller.abort(new Error('stop'));
  await assert.rejects(waiting, /stop/);
});
