import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DroppedRequestsTracker } from './dropped-requests.js';

describe('Retry-After per priority level (upstream dropped_requests_tracker_test.go)', () => {
  test('TestDroppedRequestsTracker: the steps, drops and Retry-After of upstream\'s table', () => {
    // Upstream's fake clock starts at time.Now(): not on a second boundary.
    let now = 1_700_000_000_123;
    const tracker = new DroppedRequestsTracker(() => now);
    const steps: Array<[seconds: number, drops: number, retryAfter: number]> = [
      [0, 5, 1],
      [1, 11, 2],
      // Not bumped again straight away despite the drops.
      [2, 1, 2],
      [3, 11, 4],
      [4, 1, 4],
      [7, 1, 8],
      [11, 1, 8],
      [15, 1, 7],
      [17, 1, 6],
      [21, 14, 5],
      [22, 1, 10],
    ];
    let elapsed = 0;
    for (const [seconds, drops, retryAfter] of steps) {
      now += (seconds - elapsed) * 1000;
      elapsed = seconds;
      for (let i = 0; i < drops; i++) tracker.recordDroppedRequest('pl');
      assert.equal(tracker.retryAfter('pl'), retryAfter, `after ${seconds} s`);
    }
  });

  test('TestDroppedRequestsTrackerPLIndependent: one level\'s drops do not raise another\'s', () => {
    let now = 1_700_000_000_456;
    const tracker = new DroppedRequestsTracker(() => now);
    for (let i = 0; i < 10; i++) tracker.recordDroppedRequest(`pl-${i}`);
    now += 1000;
    for (let i = 0; i < 10; i++) {
      tracker.recordDroppedRequest(`pl-${i}`);
      assert.equal(tracker.retryAfter(`pl-${i}`), 1);
    }
    for (let i = 0; i < 5; i++) tracker.recordDroppedRequest('pl-0');
    now += 1000;
    for (let i = 0; i < 10; i++) {
      tracker.recordDroppedRequest(`pl-${i}`);
      assert.equal(tracker.retryAfter(`pl-${i}`), i === 0 ? 2 : 1, `pl-${i}`);
    }
    assert.equal(tracker.retryAfter('other-pl'), 1);
  });
});
