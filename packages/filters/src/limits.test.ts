import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalRateLimiter, TOO_MANY_REQUESTS_MESSAGE } from './limits.js';
import { startServer } from '@plat/apiserver/testing';

test('limits: a token bucket gives the burst at once, then the rate, and says when to retry', () => {
  let now = 0;
  const limiter = new LocalRateLimiter(2, 3, () => now);
  assert.deepEqual([1, 2, 3, 4].map(() => limiter.take('alice').allowed), [true, true, true, false]);
  assert.equal(limiter.take('alice').retryAfterSeconds, 0.5);
  assert.equal(limiter.take('bob').allowed, true, 'users have their own buckets');
  now = 0.5;
  assert.equal(limiter.take('alice').allowed, true, 'one token after 1/qps seconds');
  assert.equal(limiter.take('alice').allowed, false);
});

test('limits: over the in-flight limit a request gets 429 with Retry-After; mutating requests have their own limit', async () => {
  const { server, get } = await startServer({
    limits: { maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 },
    authentication: { tokens: new Map([['t-admin', { name: 'admin', uid: '', groups: ['system:masters'] }]]) },
  });
  const releases: (() => void)[] = [];
  let entered = 0;
  server.handle('/slow', async (ctx) => {
    entered++;
    await new Promise<void>((resolve) => releases.push(resolve));
    ctx.body = 'done';
  });
  try {
    const slow = [get('/slow'), get('/slow')];
    while (entered < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const refused = await get('/slow');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers['retry-after'], '1');
    const status = JSON.parse(refused.body) as { kind: string; reason: string; message: string; code: number };
    assert.deepEqual([status.kind, status.reason, status.message, status.code], ['Status', 'TooManyRequests', TOO_MANY_REQUESTS_MESSAGE, 429]);
    // A mutating request is counted apart: the read-only slots being full does not refuse it.
    server.handle('/mutate', (ctx) => {
      ctx.body = 'ok';
    });
    assert.equal((await get('/mutate', { method: 'POST' })).status, 200);
    const admin = { headers: { Authorization: 'Bearer t-admin' } };
    assert.equal((await get('/metrics', admin)).status, 200, 'system:masters is never refused');
    for (const release of releases) release();
    for (const res of await Promise.all(slow)) assert.equal(res.status, 200);
    const metrics = (await get('/metrics')).body;
    assert.match(metrics, /apiserver_current_inflight_requests\{request_kind="readOnly"\} 1/, 'the scrape itself');
    // Upstream's max-in-flight filter's counts; the apiserver_flowcontrol_* names are API Priority and Fairness's alone.
    assert.match(metrics, /apiserver_dropped_requests_total\{request_kind="readOnly"\} 1/);
    assert.match(metrics, /apiserver_request_terminations_total\{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="429"\} 1/);
    assert.doesNotMatch(metrics, /apiserver_flowcontrol_/);
  } finally {
    for (const release of releases) release();
    await server.shutdown();
  }
});

test('limits: per-user rates refuse a user over its burst with Retry-After, not another user', async () => {
  const { server, get } = await startServer({
    limits: { maxRequestsInflight: 0, maxMutatingRequestsInflight: 0, userRate: { qps: 1, burst: 2 } },
    authentication: { tokens: new Map([['t-alice', { name: 'alice', uid: '', groups: [] }], ['t-bob', { name: 'bob', uid: '', groups: [] }]]) },
  });
  server.handle('/hello', (ctx) => {
    ctx.body = 'hi';
  });
  try {
    const as = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await get('/hello', as('t-alice'))).status);
    assert.deepEqual(codes, [200, 200, 429]);
    const refused = await get('/hello', as('t-alice'));
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal((await get('/hello', as('t-bob'))).status, 200);
    assert.equal((await get('/readyz', as('t-alice'))).status, 200, 'probes are exempt');
    const metrics = (await get('/metrics', as('t-bob'))).body;
    assert.match(metrics, /^plat_ratelimit_rejected_requests_total 2$/m);
    assert.match(metrics, /apiserver_request_terminations_total\{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="429"\} 2/);
  } finally {
    await server.shutdown();
  }
});
