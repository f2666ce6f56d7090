import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BucketRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
  RateLimitingQueue,
  runWorkers,
  type RateLimiter,
} from './work-queue.js';

const noDelay: RateLimiter<string> = { when: () => 1, forget: () => {}, numRequeues: () => 0 };

/** Waits for `condition`, checked every few milliseconds, for at most `timeoutMs`. */
async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('work queue: an item queued twice is handed out once, in order of first add', async () => {
  const queue = new RateLimitingQueue<string>();
  for (const item of ['a', 'b', 'a', 'c', 'b']) queue.add(item);
  assert.equal(queue.len(), 3);
  assert.deepEqual([await queue.get(), await queue.get(), await queue.get()], ['a', 'b', 'c']);
});

test('work queue: an item added while processed is handed out again only after done', async () => {
  const queue = new RateLimitingQueue<string>();
  queue.add('a');
  const first = await queue.get();
  queue.add('a');
  assert.equal(queue.len(), 0, 'not queued while processing');
  let second: string | undefined;
  void queue.get().then((item) => (second = item));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(second, undefined, 'no second worker gets it meanwhile');
  queue.done(first!);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(second, 'a');
});

test('work queue: a waiting getter gets the next add at once', async () => {
  const queue = new RateLimitingQueue<string>();
  const pending = queue.get();
  queue.add('x');
  assert.equal(await pending, 'x');
});

test('work queue: addAfter delays; the earliest of several delays wins', async () => {
  const queue = new RateLimitingQueue<string>();
  const start = Date.now();
  // The later delays a minute and two away: the 30 ms one winning is told from them however loaded
  // the machine.
  queue.addAfter('a', 60_000);
  queue.addAfter('a', 30);
  queue.addAfter('a', 120_000);
  assert.equal(queue.len(), 0, 'not queued before its delay');
  assert.equal(await queue.get(), 'a');
  const waited = Date.now() - start;
  assert.ok(waited >= 25 && waited < 30_000, `waited ${waited} ms`);
  queue.shutDown();
});

test('work queue: shutDown releases waiting getters and drops delayed items', async () => {
  const queue = new RateLimitingQueue<string>();
  const pending = queue.get();
  queue.addAfter('late', 10);
  queue.shutDown();
  assert.equal(await pending, undefined);
  assert.equal(await queue.get(), undefined);
  queue.add('x');
  assert.equal(queue.len(), 0);
});

test('rate limiter: per-item exponential delays, capped, forgotten on success', () => {
  const limiter = new ItemExponentialRateLimiter<string>(5, 100);
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => limiter.when('a')), [5, 10, 20, 40, 80, 100]);
  assert.equal(limiter.when('b'), 5);
  assert.equal(limiter.numRequeues('a'), 6);
  limiter.forget('a');
  assert.equal(limiter.numRequeues('a'), 0);
  assert.equal(limiter.when('a'), 5);
});

test('rate limiter: a token bucket allows its burst, then qps', () => {
  let now = 0;
  const bucket = new BucketRateLimiter<string>(10, 3, () => now);
  assert.deepEqual([bucket.when(), bucket.when(), bucket.when()], [0, 0, 0]);
  assert.equal(Math.round(bucket.when()), 100);
  assert.equal(Math.round(bucket.when()), 200);
  now = 1000;
  // 10 tokens earned, capped at the burst of 3, minus the 2 borrowed.
  assert.equal(bucket.when(), 0);
});

test('rate limiter: the longest delay of several limiters', () => {
  const limiter = new MaxOfRateLimiter<string>(new ItemExponentialRateLimiter(5, 1000), { when: () => 7, forget: () => {}, numRequeues: () => 0 });
  assert.deepEqual([limiter.when('a'), limiter.when('a'), limiter.when('a')], [7, 10, 20]);
});

test('runWorkers: failures are retried rate-limited, success forgets them, a key is never run twice at once', async () => {
  const queue = new RateLimitingQueue<string>({ rateLimiter: new ItemExponentialRateLimiter(1, 10) });
  const attempts = new Map<string, number>();
  const running = new Set<string>();
  let overlap = false;
  const workers = runWorkers(queue, 3, async (key) => {
    if (running.has(key)) overlap = true;
    running.add(key);
    await new Promise((resolve) => setTimeout(resolve, 2));
    running.delete(key);
    const n = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, n);
    if (key === 'flaky' && n < 3) throw new Error('not yet');
  });
  queue.add('flaky');
  queue.add('steady');
  for (let i = 0; i < 5; i++) queue.add('steady');
  await until('flaky done and the queue idle', () => attempts.get('flaky') === 3 && queue.len() === 0 && running.size === 0);
  queue.shutDown();
  await workers;
  assert.equal(attempts.get('flaky'), 3);
  assert.ok((attempts.get('steady') ?? 0) <= 3);
  assert.equal(queue.numRequeues('flaky'), 0);
  assert.equal(overlap, false);
});

test('runWorkers: a queue with a limiter that always waits still drains', async () => {
  const queue = new RateLimitingQueue<string>({ rateLimiter: noDelay });
  const done: string[] = [];
  const workers = runWorkers(queue, 1, async (key) => void done.push(key));
  queue.add('a');
  await until('a worked on', () => done.length > 0);
  queue.shutDown();
  await workers;
  assert.deepEqual(done, ['a']);
});

test('metrics: adds, depth, waits and work times, retries, as client-go counts them', async () => {
  const counts = { adds: 0, depth: 0, gets: 0, done: 0, retries: 0 };
  const names: string[] = [];
  const waited: number[] = [];
  const queue = new RateLimitingQueue<string>({
    name: 'namespace',
    rateLimiter: new ItemExponentialRateLimiter(1, 10),
    metrics: (name) => {
      names.push(name);
      return {
        add: () => void (counts.adds++, counts.depth++),
        get: (ms) => void (counts.gets++, counts.depth--, waited.push(ms)),
        done: (ms) => void (counts.done++, assert.ok(ms >= 0)),
        retry: () => void counts.retries++,
      };
    },
  });
  assert.deepEqual(names, ['namespace']);
  queue.add('a');
  queue.add('a'); // already waiting: not an add
  queue.add('b');
  assert.deepEqual(counts, { adds: 2, depth: 2, gets: 0, done: 0, retries: 0 });
  await new Promise((resolve) => setTimeout(resolve, 5));
  const a = await queue.get();
  assert.ok(waited[0]! >= 4, `waited ${waited[0]} ms`);
  queue.add('a'); // while processing: counted, handed out after done
  assert.deepEqual(counts, { adds: 3, depth: 2, gets: 1, done: 0, retries: 0 });
  queue.done(a!);
  queue.addRateLimited('c');
  queue.addAfter('d', 0);
  assert.equal(counts.retries, 2);
  assert.deepEqual([await queue.get(), await queue.get(), await queue.get()], ['b', 'a', 'd']);
  assert.equal(await queue.get(), 'c');
  assert.deepEqual(counts, { adds: 5, depth: 0, gets: 5, done: 1, retries: 2 });
  queue.shutDown();
});

test('metrics: none given, nothing is timed', () => {
  const queue = new RateLimitingQueue<string>();
  assert.equal(queue.name, '');
  queue.add('a');
  assert.equal(queue.len(), 1);
});
