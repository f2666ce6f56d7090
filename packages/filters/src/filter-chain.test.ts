import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FILTER_CHAIN, withFilterBefore, type NamedFilter } from './filter-chain.js';
import { startServer } from '@plat/apiserver/testing';

test("the default chain, upstream's order outermost first, the mux last", () => {
  assert.deepEqual(
    DEFAULT_FILTER_CHAIN.map((filter) => filter.name),
    ['request-info', 'audit', 'metrics', 'request-log', 'error-handler', 'timeout', 'authentication', 'audit-request-received', 'impersonation', 'priority-and-fairness', 'max-in-flight', 'per-user-rate', 'authorization', 'mux'],
  );
});

test('a filter added by one entry runs where it is put: after authentication, before authorization', async (t) => {
  const seen: string[] = [];
  const stamp: NamedFilter = {
    name: 'stamp',
    build: () => async (ctx, next) => {
      seen.push(`${ctx.state.user.name} ${ctx.path}`);
      ctx.set('X-Stamped-For', ctx.state.user.name);
      await next();
    },
  };
  const chain = withFilterBefore(DEFAULT_FILTER_CHAIN, 'authorization', stamp);
  const tokens = new Map([['t-alice', { name: 'alice', uid: '', groups: [] }]]);
  const allowing = await startServer({ authentication: { tokens }, filterChain: chain });
  t.after(() => allowing.server.shutdown());
  const answered = await allowing.get('/version', { headers: { Authorization: 'Bearer t-alice' } });
  assert.equal(answered.status, 200);
  assert.equal(answered.headers['x-stamped-for'], 'alice', 'after authentication: it knows the user');
  // Authorization refuses: the stamp has run before it all the same.
  const denying = await startServer({ authentication: { tokens }, authorizationModes: ['AlwaysDeny'], filterChain: chain });
  t.after(() => denying.server.shutdown());
  assert.equal((await denying.get('/version', { headers: { Authorization: 'Bearer t-alice' } })).status, 403);
  assert.deepEqual(seen, ['alice /version', 'alice /version']);
  assert.throws(() => withFilterBefore(DEFAULT_FILTER_CHAIN, 'nope', stamp), /no filter named nope/);
});
