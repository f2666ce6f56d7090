import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultRequestWaitLimitMs, requestWaitDeadline } from './wait-limit.js';

describe('the wait limit (upstream TestGetRequestWaitContext)', () => {
  const now = 1_000_000;
  const s = 1000;
  const rows: Array<[name: string, receivedAt: number, deadline: number | undefined, defaultLimit: number, waitFromNow: number]> = [
    ['a deadline, received now: a quarter of it', now, now + 60 * s, 0, 15 * s],
    ['a deadline, received 10 s ago: a quarter of the deadline from then', now - 10 * s, now + 50 * s, 0, 5 * s],
    ['no deadline, received now: the default', now, undefined, 15 * s, 15 * s],
    ['no deadline, received 10 s ago: the default from then', now - 10 * s, undefined, 15 * s, 5 * s],
    ['a deadline whose quarter exceeds a minute: a minute', now, now + 8 * 60 * s, 0, 60 * s],
    ['no deadline and a default over a minute: a minute', now, undefined, 2 * 60 * s, 60 * s],
  ];
  for (const [name, receivedAt, deadline, defaultLimit, waitFromNow] of rows) {
    test(name, () => assert.equal(requestWaitDeadline(receivedAt, deadline, defaultLimit) - now, waitFromNow));
  }
  test('the default is a quarter of --request-timeout: 60 s gives 15 s', () => assert.equal(defaultRequestWaitLimitMs(60 * s), 15 * s));
});
