import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { RequestTracker } from './request-tracker.js';

const fakeResponse = (): ServerResponse & EventEmitter => new EventEmitter() as ServerResponse & EventEmitter;

test('request tracker: counts until close; long-running ones are not pending', async () => {
  const tracker = new RequestTracker();
  const short = fakeResponse();
  const stream = fakeResponse();
  tracker.track(short);
  tracker.track(stream);
  let ended = 0;
  tracker.registerLongRunning(stream, () => {
    ended++;
    stream.emit('close');
  });
  assert.equal(tracker.total, 2);
  assert.equal(tracker.pending, 1);

  const drained = tracker.waitFor(() => tracker.pending, 5000);
  short.emit('close');
  assert.equal(await drained, true);
  assert.equal(tracker.endLongRunning(), 1);
  assert.equal(ended, 1);
  assert.equal(tracker.total, 0);
  assert.equal(tracker.endLongRunning(), 0);
});

test('request tracker: waiting gives up at the timeout', async () => {
  const tracker = new RequestTracker();
  tracker.track(fakeResponse());
  assert.equal(await tracker.waitFor(() => tracker.pending, 20), false);
});

test('request tracker: an unregistered stream is waited for like any request', () => {
  const tracker = new RequestTracker();
  const res = fakeResponse();
  tracker.track(res);
  const unregister = tracker.registerLongRunning(res, () => assert.fail('not ended'));
  unregister();
  assert.equal(tracker.pending, 1);
  assert.equal(tracker.endLongRunning(), 0);
});
