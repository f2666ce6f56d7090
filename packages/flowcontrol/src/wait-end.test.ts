import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WaitEnd } from './queue-set.js';

test('WaitEnd: as an AbortSignal for one waiter: its listener called once on abort, not after removal', () => {
  const end = new WaitEnd();
  let calls = 0;
  const listener = () => void calls++;
  end.addEventListener('abort', listener, { once: true });
  end.abort();
  end.abort();
  assert.equal(calls, 1);
  assert.equal(end.aborted, true);
  const other = new WaitEnd();
  other.addEventListener('abort', listener);
  other.removeEventListener('abort', listener);
  other.abort();
  assert.equal(calls, 1, 'removed before the abort');
});
