import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { longTimeout, watchTimeoutMs } from './watch-timeout.js';

test('watchTimeoutMs: time.Duration(timeoutSeconds) * time.Second, as upstream computes it', () => {
  const fallback = 1_800_000;
  const cases: [bigint | undefined, number][] = [
    [undefined, fallback],
    // Zero is no timeout: the spread default, not an immediate end.
    [0n, fallback],
    [5n, 5_000],
    [-1n, 0],
    // Past 2^31 ms, beyond what one setTimeout holds.
    [2_147_484n, 2_147_484_000],
    [9_223_372_036n, 9_223_372_036_000],
    // Go's int64 nanoseconds wrap: the largest int64 of seconds is -1 s, so an immediate end.
    [9_223_372_036_854_775_807n, 0],
    // ... and 2^63 / 10^9 seconds and a bit wraps to a large negative too.
    [9_223_372_037n, 0],
  ];
  for (const [seconds, want] of cases) assert.equal(watchTimeoutMs(seconds, fallback), want, String(seconds));
});

test('longTimeout: a delay past 2^31-1 ms fires at its time, not at once', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const fired = mock.fn();
  longTimeout(fired, 30 * 24 * 3600 * 1000);
  t.mock.timers.tick(1);
  assert.equal(fired.mock.callCount(), 0, 'not at once');
  t.mock.timers.tick(2 ** 31);
  assert.equal(fired.mock.callCount(), 0, 'not after the first timer');
  t.mock.timers.tick(30 * 24 * 3600 * 1000 - 2 ** 31 - 2);
  assert.equal(fired.mock.callCount(), 0, 'not a millisecond early');
  t.mock.timers.tick(1);
  assert.equal(fired.mock.callCount(), 1);
});

test('longTimeout: cancelled, it never fires', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const fired = mock.fn();
  const cancel = longTimeout(fired, 2 ** 32);
  t.mock.timers.tick(2 ** 31);
  cancel();
  t.mock.timers.tick(2 ** 32);
  assert.equal(fired.mock.callCount(), 0);
});
